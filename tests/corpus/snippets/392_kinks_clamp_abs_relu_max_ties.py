# after: PyTorch forum "What is the gradient of relu / abs / clamp at exactly 0 or at the bound?" and "gradient of max when several elements are equal" (clamp at min and max, abs and relu at 0, leaky_relu, hardtanh, max() vs max(dim) vs amax with ties, torch.maximum of equal inputs, median)
# expect: match
import torch
import torch.nn.functional as F

x = torch.tensor([-2.0, -1.0, 0.0, 1.0, 2.0], requires_grad=True)
x.clamp(-1.0, 1.0).sum().backward()
print('clamp', x.grad)
x.grad = None
x.clamp(min=0.0).sum().backward()
print('clamp_min', x.grad)
x.grad = None
F.hardtanh(x).sum().backward()
print('hardtanh', x.grad)
x.grad = None
x.abs().sum().backward()
print('abs', x.grad)
x.grad = None
torch.relu(x).sum().backward()
print('relu', x.grad)
x.grad = None
F.leaky_relu(x, 0.1).sum().backward()
print('leaky', x.grad)
x.grad = None
F.relu6(x * 3).sum().backward()
print('relu6', x.grad)
x.grad = None
x.sign().sum().backward()
print('sign', x.grad)

t = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
t.max().backward()
print('max()', t.grad)
t.grad = None
t.max(dim=1).values.sum().backward()
print('max(dim)', t.grad)
t.grad = None
t.amax(dim=1).sum().backward()
print('amax(dim)', t.grad)
t.grad = None
t.min().backward()
print('min()', t.grad)
t.grad = None
t.median().backward()
print('median', t.median(), t.grad)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([1.0, 5.0, 0.0], requires_grad=True)
torch.maximum(a, b).sum().backward()
print('maximum', a.grad, b.grad)
a.grad = None; b.grad = None
torch.max(a, b).sum().backward()
print('max(a, b)', a.grad, b.grad)
a.grad = None
torch.norm(a - a.detach(), p=1).backward()
print('l1 at 0', a.grad)

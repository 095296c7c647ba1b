# after: PyTorch forum "cumprod backward with zeros gives wrong/nan gradients?" (cumprod's gradient when the input holds zeros, cumsum and a reversed cumsum with flip for discounted returns, logcumsumexp, cummax, prod with a zero)
# expect: match
import torch

x = torch.tensor([2.0, 0.0, 3.0, 4.0], requires_grad=True)
c = torch.cumprod(x, dim=0)
c.sum().backward()
print(c, x.grad)

x.grad = None
x.prod().backward()
print(x.grad)

y = torch.tensor([2.0, 0.0, 3.0, 0.0], requires_grad=True)
y.prod().backward()
print(y.grad)
y.grad = None
torch.cumprod(y, 0).sum().backward()
print(y.grad)

rewards = torch.tensor([1.0, 0.0, 0.0, 1.0], requires_grad=True)
gamma = 0.9
discounts = gamma ** torch.arange(4.0)
returns = torch.flip(torch.cumsum(torch.flip(rewards * discounts, [0]), 0), [0]) / discounts
returns.sum().backward()
print(returns, rewards.grad)

z = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
s = torch.cumsum(z, dim=1)
(s * torch.tensor([1.0, -1.0, 2.0])).sum().backward()
print(s, z.grad)

z.grad = None
l = torch.logcumsumexp(z, dim=1)
l[:, -1].sum().backward()
print(l, z.grad)

z.grad = None
m = torch.cummax(z, dim=1)
m.values.sum().backward()
print(m.values, m.indices, z.grad)

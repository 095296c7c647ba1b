# after: PyTorch forum "use autograd.grad for a regulariser, then loss.backward()" (retain_graph=True on the first call, the second fills .grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(3, 1)
x = torch.randn(5, 3, requires_grad=True)
out = net(x)
loss = out.pow(2).mean()

dx, = torch.autograd.grad(loss, x, retain_graph=True)
print(dx)
print(net.weight.grad)
loss.backward()
print(net.weight.grad, net.bias.grad)
print(x.grad)
print(torch.equal(x.grad, dx))

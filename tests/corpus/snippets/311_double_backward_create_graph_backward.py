# after: PyTorch forum "backward(create_graph=True)" to get second derivatives in .grad (grad of the grad, zeroed between, with the UserWarning avoided by autograd.grad)
# expect: match
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
dy_dx, = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)
d2 = dy_dx.sum()
d2.backward()
print(x.grad)

z = torch.tensor(2.0, requires_grad=True)
f = z ** 4
df, = torch.autograd.grad(f, z, create_graph=True)
d2f, = torch.autograd.grad(df, z, create_graph=True)
d3f, = torch.autograd.grad(d2f, z)
print(df.item(), d2f.item(), d3f.item())

# after: Stack Overflow "One of the differentiated Tensors appears to not have been used in the graph" (torch.autograd.grad with allow_unused=True, materialize_grads)
# expect: match
import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = torch.tensor(4.0, requires_grad=True)

f = x ** 2 * y

dx, dy, dz = torch.autograd.grad(f, [x, y, z], allow_unused=True, retain_graph=True)
print(dx, dy, dz)

grads = torch.autograd.grad(f, (x, y, z), allow_unused=True, materialize_grads=True)
print(grads)

try:
    torch.autograd.grad(f, [x, z])
except RuntimeError as err:
    print("RuntimeError:", str(err).split(".")[0])

# after: tutorials printing gradients with hooks (y.register_hook(print), lambda grad: print(grad)) and torch.autograd.functional.jacobian(model, x) on a module
# expect: match
import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.register_hook(print)
z = y.pow(2)
z.register_hook(lambda grad: print("dz", grad))
z.sum().backward()
print(x.grad)
model = nn.Sequential(nn.Linear(2, 3), nn.Tanh())
J = torch.autograd.functional.jacobian(model, torch.ones(2))
print(J)
H = torch.autograd.functional.hessian(lambda v: model(v).sum(), torch.ones(2), create_graph=False)
print(H)

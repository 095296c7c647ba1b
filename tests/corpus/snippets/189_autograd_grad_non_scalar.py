# after: Stack Overflow "torch.autograd.grad: grad can be implicitly created only for scalar outputs" (forgot grad_outputs)
# expect: explained non-scalar-backward
# mentions: y_pred
import torch

x = torch.linspace(0, 1, 5, requires_grad=True)
y_pred = torch.sin(3 * x)
dy_dx = torch.autograd.grad(y_pred, x, create_graph=True)[0]
print(dy_dx)

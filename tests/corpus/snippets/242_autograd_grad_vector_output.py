# after: Stack Overflow "grad can be implicitly created only for scalar outputs" from torch.autograd.grad (derivative of a vector function at many points)
# expect: explained non-scalar-backward
# mentions: `y_vals` | grad_outputs=torch.ones_like(y_vals)
import torch

x_vals = torch.linspace(-2.0, 2.0, steps=5, requires_grad=True)
y_vals = torch.sin(x_vals) * x_vals
(dy_dx,) = torch.autograd.grad(y_vals, x_vals)
print(dy_dx)

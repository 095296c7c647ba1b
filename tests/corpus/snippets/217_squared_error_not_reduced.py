# after: Stack Overflow "grad can be implicitly created only for scalar outputs" (squared errors never averaged)
# expect: explained non-scalar-backward
# mentions: `sq_err` | sq_err.mean().backward() | torch.ones_like(sq_err)
import torch

w = torch.tensor([[0.5]], requires_grad=True)
x_data = torch.arange(5.0).reshape(5, 1)
y_data = 3 * x_data

sq_err = (x_data @ w - y_data) ** 2
sq_err.backward()

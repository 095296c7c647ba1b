# after: Extending PyTorch / custom-op questions "Jacobian mismatch for output 0 with respect to input 0" (torch.autograd.gradcheck run on float32 inputs, where finite differences are too coarse; the docs ask for dtype=torch.double)
# expect: explained gradcheck-precision
# mentions: x | dtype=torch.double
import torch
from torch.autograd import Function


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
print(torch.autograd.gradcheck(Cube.apply, (x,), eps=1e-6, atol=1e-4))

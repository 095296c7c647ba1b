# after: PyTorch docs "Extending torch.autograd" MulConstant (non-tensor argument, ctx attribute)
# expect: match
import torch
from torch.autograd import Function


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


x = torch.randn(3, requires_grad=True)
y = MulConstant.apply(x, 5.5)
y.sum().backward()
print(x.grad)

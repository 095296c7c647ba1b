# after: Extending PyTorch questions "function MulConstantBackward returned an incorrect number of gradients (expected 2, got 1)" (the docs' MulConstant with its backward returning only the tensor's gradient, no None for the constant)
# expect: explained custom-grad-count
# mentions: MulConstant | `return grad_output * ctx.constant, None`
import torch
from torch.autograd import Function


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant


x = torch.randn(3, requires_grad=True)
y = MulConstant.apply(x, 5.0)
y.sum().backward()
print(x.grad)

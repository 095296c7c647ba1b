# after: PyTorch docs FunctionCtx.mark_non_differentiable example (a Function returning values and indices)
# expect: match
import torch
from torch.autograd import Function


class Func(Function):
    @staticmethod
    def forward(ctx, x):
        out, idx = x.max(dim=0)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return out, idx

    @staticmethod
    def backward(ctx, g1, g2):  # still need to accept g2
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        grad_input[idx] = g1
        return grad_input


x = torch.tensor([3.0, 1.0, 7.0, 2.0], requires_grad=True)
value, index = Func.apply(x)
print(value, index, index.requires_grad)
(value * 2).backward()
print(x.grad)

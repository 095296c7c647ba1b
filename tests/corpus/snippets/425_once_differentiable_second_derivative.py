# after: PyTorch forum "double backward through a custom Function returns no grad_fn" (a custom Swish Function whose backward is decorated with @once_differentiable, then a gradient penalty that differentiates its gradient again)
# expect: explained no-grad-to-compute
# mentions: `grad_x` | @once_differentiable | `Swish.backward` (line 15) | Remove `@once_differentiable` from `Swish.backward`
import torch
from torch.autograd.function import once_differentiable

class Swish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))

x = torch.randn(8, 3, requires_grad=True)
out = (Swish.apply(x) * 2).sum()
grad_x, = torch.autograd.grad(out, x, create_graph=True)
penalty = ((grad_x.norm(2, dim=1) - 1) ** 2).mean()
penalty.backward()

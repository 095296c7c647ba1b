# after: PyTorch docs torch.autograd.function.FunctionCtx.mark_dirty example (an in-place custom Function)
# expect: match
import torch
from torch.autograd import Function


class Inplace(Function):
    @staticmethod
    def forward(ctx, x):
        x_npy = x.numpy()  # x_npy shares storage with x
        x_npy += 1
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


a = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
b = a * a
Inplace.apply(a)  # This would lead to wrong gradients!
                  # but the engine would not know unless we mark_dirty
print(a)
c = torch.tensor([2.0, 3.0], requires_grad=True)
d = c * 1
e = Inplace.apply(d)
e.sum().backward()
print(c.grad, e is d)

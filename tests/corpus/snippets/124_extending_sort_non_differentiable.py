# after: PyTorch docs "Extending torch.autograd" (mark_non_differentiable on sort indices, set_materialize_grads(False) in SimpleFunc)
# expect: match
import torch
from torch.autograd import Function


class Func(Function):
    @staticmethod
    def forward(ctx, x):
        sorted, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return sorted, idx

    @staticmethod
    def backward(ctx, g1, g2):  # still need to accept g2
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        grad_input.index_add_(0, idx, g1)
        return grad_input


class SimpleFunc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        x, = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        if g1 is not None:  # We must check for None now
            grad_input += g1
        if g2 is not None:
            grad_input += g2
        return grad_input


a = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
sorted_a, order = Func.apply(a)
print(sorted_a, order, order.requires_grad)
(sorted_a * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(a.grad)

b = torch.tensor(1., requires_grad=True)
out, _ = SimpleFunc.apply(b)
out.backward()
print(b.grad)

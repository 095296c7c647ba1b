# after: PyTorch docs FunctionCtx (mark_non_differentiable for a sort's indices, mark_dirty for an in-place add, set_materialize_grads(False) with a None grad for an unused output), each checked with gradcheck in double precision
# expect: match
import torch
from torch.autograd import Function, gradcheck

class Sort(Function):
    @staticmethod
    def forward(ctx, x):
        sorted_x, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return sorted_x, idx

    @staticmethod
    def backward(ctx, g1, g2):  # still need to accept g2
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x, memory_format=torch.legacy_contiguous_format)
        grad_input.index_add_(0, idx, g1)
        return grad_input

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

torch.manual_seed(11)
a = torch.randn(6, dtype=torch.double, requires_grad=True)
print(gradcheck(lambda t: Sort.apply(t)[0], (a,)))
s, i = Sort.apply(a)
print(s.requires_grad, i.requires_grad, i)
(s * torch.arange(6.)).sum().backward()
print(a.grad)

b = torch.randn(3, dtype=torch.double, requires_grad=True)
c = b.clone()
d = Inplace.apply(c)
print(c is d, torch.equal(d, b + 1))
d.pow(2).sum().backward()
print(b.grad)
print(gradcheck(lambda t: Inplace.apply(t.clone()), (b,)))

e = torch.tensor([1., 2.], dtype=torch.double, requires_grad=True)
first, second = SimpleFunc.apply(e)
(first * 3).sum().backward()
print(e.grad)
print(gradcheck(lambda t: SimpleFunc.apply(t)[0], (e,)))

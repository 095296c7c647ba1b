# after: PyTorch docs FunctionCtx.set_materialize_grads example (None gradients for unused outputs)
# expect: match
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class SimpleFunc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.clone(), x.clone()

    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):  # g1 and g2 can be None
        x, = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        if g1 is not None:  # We must check for None now
            grad_input += g1
        if g2 is not None:
            grad_input += g2
        return grad_input


a = torch.tensor(1., requires_grad=True)
b, _ = SimpleFunc.apply(a)
b.backward()  # g2 will be None
print(a.grad)

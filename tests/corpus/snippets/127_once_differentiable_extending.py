# after: PyTorch docs "Extending torch.autograd" and C++/CUDA extension tutorials (backward decorated with @once_differentiable)
# expect: match
import torch
from torch.autograd import Function


class MyReLU(Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return inp.clamp(min=0)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_output):
        (inp,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[inp < 0] = 0
        return grad_input


x = torch.tensor([-1.0, 0.5, 2.0, -3.0], requires_grad=True)
y = MyReLU.apply(x)
loss = (y * torch.arange(4.0)).sum()
loss.backward()
print(x.grad)

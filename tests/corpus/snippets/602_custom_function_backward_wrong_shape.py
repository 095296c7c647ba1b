# after: Extending PyTorch questions "Function LinearFunctionBackward returned an invalid gradient at index 1 - got [3, 2] but expected shape compatible with [2, 3]" (grad_weight computed as input.t().mm(grad_output) instead of grad_output.t().mm(input))
# expect: explained custom-grad-shape
# mentions: LinearFunction | (`weight`) | grad_output.t().mm(input)
import torch
from torch.autograd import Function


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        return input.mm(weight.t())

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = grad_output.mm(weight)
        grad_weight = input.t().mm(grad_output)
        return grad_input, grad_weight


torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(2, 3, requires_grad=True)
out = LinearFunction.apply(x, w)
out.sum().backward()
print(w.grad)

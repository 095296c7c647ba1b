# after: the "Extending PyTorch" docs (LinearFunction with forward(input, weight, bias) and a separate setup_context(ctx, inputs, output), ctx.needs_input_grad in backward; MulConstant returning None for its non-tensor argument; a Sort-like function marking its indices with ctx.mark_non_differentiable; MyExp with save_for_forward and a jvp staticmethod used with torch.autograd.forward_ad dual numbers)
# expect: match
import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd import Function


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class SortValues(Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, g1, g2):
        (indices,) = ctx.saved_tensors
        grad_input = torch.zeros_like(g1)
        grad_input.index_add_(0, indices, g1)
        return grad_input


class MyExp(Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        ctx.save_for_forward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * result


torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(2, 3, requires_grad=True)
b = torch.randn(2, requires_grad=True)
out = LinearFunction.apply(x, w, b)
y = MulConstant.apply(out, 0.5)
y.sum().backward()
print(x.grad, w.grad, b.grad, sep="\n")
print(torch.autograd.gradcheck(LinearFunction.apply, (x.double(), w.double(), b.double())))

v = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
values, indices = SortValues.apply(v)
print(indices.requires_grad, values.requires_grad)
(values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(v.grad)

primal = torch.randn(3)
tangent = torch.ones(3)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = MyExp.apply(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
print(jvp)
print(torch.allclose(jvp, primal.exp()))

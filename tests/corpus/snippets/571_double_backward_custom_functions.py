# after: the PyTorch tutorial "Double Backward with Custom Functions" (Square saving its input with save_for_backward and computing grad_out * 2 * x with differentiable ops; Exp saving its output; Sinh saving an intermediate exp(x) and exp(-x) returned as extra outputs marked with ctx.mark_non_differentiable; torch.autograd.gradcheck and gradgradcheck on float64 inputs)
# expect: match
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 2 * x


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x))
print(torch.autograd.gradgradcheck(Square.apply, x))


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        (result,) = ctx.saved_tensors
        return result * grad_out


x = torch.tensor(1.0, requires_grad=True, dtype=torch.double).clone()
print(torch.autograd.gradcheck(Exp.apply, x))
print(torch.autograd.gradgradcheck(Exp.apply, x))


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    return Sinh.apply(x)[0]


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(sinh, x))
print(torch.autograd.gradgradcheck(sinh, x))

y = torch.linspace(-1, 1, 5, dtype=torch.double, requires_grad=True)
s = sinh(y)
(g,) = torch.autograd.grad(s.sum(), y, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), y)
print(g)
print(gg)
sq = Square.apply(y)
(dsq,) = torch.autograd.grad(sq.sum(), y, create_graph=True)
dsq.sum().backward()
print(y.grad)

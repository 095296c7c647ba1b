# after: PyTorch docs "Extending torch.func with autograd.Function" (MyCube returning the result and its derivative, setup_context saving both, a backward that is itself differentiable), checked with gradcheck and gradgradcheck in double precision, then torch.func.grad, jacrev and a second-order grad through it, and torch.linalg.norm of the result
# expect: match
import torch

class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result

def my_cube(x):
    result, _ = MyCube.apply(x)
    return result

torch.manual_seed(36)
x = torch.randn(4, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(my_cube, (x,)), torch.autograd.gradgradcheck(my_cube, (x,)))
print(torch.func.grad(lambda t: my_cube(t).sum())(x.detach()))
print(torch.func.jacrev(my_cube)(x.detach()))
second = torch.func.grad(lambda t: torch.func.grad(lambda s: my_cube(s).sum())(t).sum())
print(second(x.detach()), 6 * x.detach())
n = torch.linalg.norm(my_cube(x))
n.backward()
print(n, x.grad)

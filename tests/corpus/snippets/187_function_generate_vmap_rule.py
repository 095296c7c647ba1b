# after: PyTorch docs "Extending torch.func with autograd.Function" (MyCube, setup_context, generate_vmap_rule)
# expect: match
import torch
from torch.func import grad, vmap


class MyCube(torch.autograd.Function):
    generate_vmap_rule = True

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
    result, dx = MyCube.apply(x)
    return result


x = torch.tensor(2.0)
ggx = grad(grad(my_cube))(x)
print(ggx)
print(vmap(my_cube)(torch.tensor([1.0, 2.0, 3.0])))
print(vmap(grad(my_cube))(torch.tensor([1.0, 2.0, 3.0])))

# after: PyTorch docs "Extending torch.autograd: Forward mode AD" (a Function with both backward and jvp, ctx.save_for_forward, used inside fwAD.dual_level with make_dual/unpack_dual, its tangent compared with the vjp of backward and with torch.func.jvp of the plain function)
# expect: match
import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd import Function

class MyMulAdd(Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        ctx.alpha = alpha
        return x * y + alpha * x

    @staticmethod
    def backward(ctx, grad_out):
        x, y = ctx.saved_tensors
        return grad_out * (y + ctx.alpha), grad_out * x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, _):
        x, y = ctx.saved_tensors
        return x_t * (y + ctx.alpha) + y_t * x

torch.manual_seed(7)
x = torch.randn(5, dtype=torch.double)
y = torch.randn(5, dtype=torch.double)
x_t = torch.randn(5, dtype=torch.double)
y_t = torch.zeros(5, dtype=torch.double)

with fwAD.dual_level():
    dual_x = fwAD.make_dual(x, x_t)
    dual_y = fwAD.make_dual(y, y_t)
    dual_out = MyMulAdd.apply(dual_x, dual_y, 2.0)
    primal, tangent = fwAD.unpack_dual(dual_out)
    print(primal)
    print(tangent)
    print(fwAD.unpack_dual(dual_x).tangent is x_t)

def f(x, y):
    return x * y + 2.0 * x
out, jvp_out = torch.func.jvp(f, (x, y), (x_t, y_t))
print(torch.allclose(jvp_out, tangent), torch.equal(out, primal))

xr = x.clone().requires_grad_()
yr = y.clone().requires_grad_()
res = MyMulAdd.apply(xr, yr, 2.0)
res.backward(torch.ones_like(res))
print(xr.grad, yr.grad)
print(torch.autograd.gradcheck(lambda a, b: MyMulAdd.apply(a, b, 2.0), (xr, yr), check_forward_ad=True))

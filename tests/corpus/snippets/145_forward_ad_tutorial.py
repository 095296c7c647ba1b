# after: PyTorch tutorial "Forward-mode Automatic Differentiation" (basic use, modules, functional_call)
# expect: match
import torch
import torch.autograd.forward_ad as fwAD
from torch.func import functional_call

primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x**2 + y**2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent

assert fwAD.unpack_dual(dual_output).tangent is None
print(jvp[0, :3])

model = torch.nn.Linear(5, 5)
inputs = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, inputs)
    jvp_model = fwAD.unpack_dual(out).tangent
print(jvp_model[0])

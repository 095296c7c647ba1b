# after: PyTorch tutorial "Forward-mode Automatic Differentiation", "Using the functional Module API" (every parameter made dual with tangents of ones inside fwAD.dual_level, torch.func.functional_call, unpack_dual(out).tangent, compared with torch.func.jvp and a finite difference)
# expect: match
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call, jvp

torch.manual_seed(12)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
params = {name: p.detach() for name, p in model.named_parameters()}
tangents = {name: torch.randn_like(p) for name, p in params.items()}
x = torch.randn(5, 3)

with fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
    out = functional_call(model, dual_params, (x,))
    jvp_fw = fwAD.unpack_dual(out).tangent
    print(fwAD.unpack_dual(x).tangent)


def f(p):
    return functional_call(model, p, (x,))


primal, jvp_func = jvp(f, (params,), (tangents,))
print(torch.allclose(jvp_fw, jvp_func), jvp_fw[0])
eps = 1e-3
shifted = {name: p + eps * tangents[name] for name, p in params.items()}
print(((f(shifted) - primal) / eps - jvp_func).abs().max() < 1e-2)

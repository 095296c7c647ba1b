# after: PyTorch docs torch.func.jvp / torch.func.vjp examples
# expect: match
import torch
from torch.func import jvp, vjp

x = torch.randn([])
f = lambda x: x * torch.tensor([1., 2., 3])
value, grad = jvp(f, (x,), (torch.tensor(1.),))
assert torch.allclose(value, f(x))
assert torch.allclose(grad, torch.tensor([1., 2, 3]))

x = torch.randn([5])
f = lambda x: x.sin()
(_, vjpfunc) = vjp(f, x)
vjps = vjpfunc(torch.ones([5]))
assert torch.allclose(vjps[0], x.cos())

x = torch.randn([5])
y = torch.randn([5])
f = lambda x, y: (x.sin() + y.cos())
_, vjp_fn = vjp(f, x, y)
vjps = vjp_fn(torch.ones([5]))
assert torch.allclose(vjps[0], x.cos())
assert torch.allclose(vjps[1], -y.sin())
print(vjps[1])

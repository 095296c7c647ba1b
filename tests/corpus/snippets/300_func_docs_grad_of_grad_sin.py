# after: PyTorch docs torch.func.grad ("grad of sin is cos", nested grad for the second derivative, checked with allclose)
# expect: match
import torch
from torch.func import grad

torch.manual_seed(0)
x = torch.randn([])
cos_x = grad(lambda x: torch.sin(x))(x)
assert torch.allclose(cos_x, x.cos())

neg_sin_x = grad(grad(lambda x: torch.sin(x)))(x)
assert torch.allclose(neg_sin_x, -x.sin())
print(x, cos_x, neg_sin_x)

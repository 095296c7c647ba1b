# after: learners trying torch.func.grad on an element-wise function of a vector (grad(f)(x) with f returning sin(x) * x: "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims")
# expect: explained func-grad-non-scalar
# mentions: `grad(f)` | jacrev(f)
import torch
from torch.func import grad

def f(x):
    return torch.sin(x) * x

x = torch.randn(5)
df = grad(f)(x)
print(df)

# after: numerical-analysis notebooks that switch to float64 with torch.set_default_dtype
# expect: match
import torch

torch.set_default_dtype(torch.float64)
x = torch.linspace(0, 1, 5, requires_grad=True)
y = torch.exp(-x ** 2).sum()
y.backward()
print(x.dtype, x.grad)

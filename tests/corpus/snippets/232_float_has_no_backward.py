# after: Stack Overflow "'float' object has no attribute 'backward'" (the loss summed from .item() values)
# expect: explained backward-on-number
# mentions: `total` | .item() | torch.stack
import torch

w = torch.randn(2, requires_grad=True)
samples = torch.randn(4, 2)
total = 0.0
for s in samples:
    total += (s @ w).pow(2).item()
total.backward()

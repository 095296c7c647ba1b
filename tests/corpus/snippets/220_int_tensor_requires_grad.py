# after: Stack Overflow "Only Tensors of floating point and complex dtype can require gradients" (torch.arange without a float)
# expect: explained integer-requires-grad
# mentions: `positions` | positions = torch.arange(5, dtype=torch.float32, requires_grad=True)
import torch

positions = torch.arange(5, requires_grad=True)
energy = (positions ** 2).sum()
energy.backward()

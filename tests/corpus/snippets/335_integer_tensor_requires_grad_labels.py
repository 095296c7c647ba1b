# after: Stack Overflow "Only Tensors of floating point dtype can require gradients" (torch.tensor of whole numbers with requires_grad=True)
# expect: explained integer-requires-grad
# mentions: `coeffs` | dtype=torch.float32
import torch

coeffs = torch.tensor([1, 2, 3], requires_grad=True)
xs = torch.linspace(0, 1, 5)
poly = coeffs[0] + coeffs[1] * xs + coeffs[2] * xs ** 2

# after: Stack Overflow "a leaf Variable that requires grad is being used in an in-place operation" (one weight of a matrix pinned to zero by assignment)
# expect: explained leaf-inplace
# mentions: `W1` | W1[0, 0] = 0.0
import torch

W1 = torch.randn(2, 2, requires_grad=True)
W1[0, 0] = 0.0
out = (W1 ** 2).sum()
out.backward()

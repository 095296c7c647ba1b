# after: Stack Overflow "RuntimeError: mat2 must be a matrix" (a linear layer written by hand with torch.mm and a 1-D bias-free input vector)
# expect: explained matmul-shape
# mentions: `x` is not 2-D | `W @ x` | torch.mv(W, x)
import torch

W = torch.randn(4, 3, requires_grad=True)
x = torch.randn(3)
h = torch.tanh(torch.mm(W, x))
h.sum().backward()

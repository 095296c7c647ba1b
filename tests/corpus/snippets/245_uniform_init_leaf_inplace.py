# after: Stack Overflow "a leaf Variable that requires grad is being used in an in-place operation" (weights initialised in place after requires_grad=True)
# expect: explained leaf-inplace
# mentions: `W_out` | with torch.no_grad(): W_out.uniform_(-0.1, 0.1)
import torch

W_out = torch.empty(5, 2, requires_grad=True)
W_out.uniform_(-0.1, 0.1)
logits = torch.randn(3, 5) @ W_out
logits.sum().backward()

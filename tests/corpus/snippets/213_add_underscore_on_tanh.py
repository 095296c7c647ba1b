# after: PyTorch forum "TanhBackward0 output 0 is at version 1" (a residual added with .add_ to the tanh activation)
# expect: explained saved-tensor-modified
# mentions: `h` | line 9 | add_
import torch

W_h = torch.randn(5, 5, requires_grad=True)
inp = torch.randn(2, 5)
h = torch.tanh(inp @ W_h)
h.add_(inp)
out = h.sum()
out.backward()

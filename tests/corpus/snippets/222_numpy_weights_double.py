# after: Stack Overflow "expected m1 and m2 to have the same dtype" (weights initialised with NumPy, inputs made by torch)
# expect: explained dtype-mismatch
# mentions: `W` | line 7 | W = torch.from_numpy(np.random.randn(3, 1)).float().requires_grad_()
import numpy as np
import torch

W = torch.from_numpy(np.random.randn(3, 1)).requires_grad_()
X = torch.randn(6, 3)
targets = torch.randn(6, 1)
loss = ((X @ W - targets) ** 2).mean()
loss.backward()

# after: Stack Overflow "my loss has no grad_fn" (a NumPy softmax written by hand in the middle of the forward pass)
# expect: explained no-grad-to-compute
# mentions: `probs` | NumPy | line 13 | torch.softmax
import numpy as np
import torch

W = torch.randn(4, 3, requires_grad=True)
x = torch.randn(5, 4)
onehot = torch.eye(3)[torch.tensor([0, 1, 2, 1, 0])]

scores = x @ W
exp = np.exp(scores.detach().numpy())
probs = torch.from_numpy(exp / exp.sum(axis=1, keepdims=True)).float()
nll = -(onehot * probs.log()).sum(dim=1).mean()
nll.backward()

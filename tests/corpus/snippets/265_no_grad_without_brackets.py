# after: a forum question, "'type' object does not support the context manager protocol"
# expect: explained grad-mode-not-called
# mentions: torch.no_grad() | with torch.no_grad():
import torch

weights = torch.ones(3, requires_grad=True)
loss = (weights * 2).sum()
loss.backward()
with torch.no_grad:
    weights -= 0.1 * weights.grad

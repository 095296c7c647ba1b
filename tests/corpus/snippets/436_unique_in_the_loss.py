# after: PyTorch forum "RuntimeError: the derivative for '_unique2' is not implemented" (a diversity penalty counting distinct predicted values with torch.unique inside the loss)
# expect: explained not-differentiable
# mentions: `unique` (used on line 9: `distinct = torch.unique(rounded)`) | .detach()
import torch

torch.manual_seed(34)
scores = torch.randn(10, requires_grad=True)
rounded = (scores * 2).round() / 2
distinct = torch.unique(rounded)
penalty = -distinct.numel() * distinct.mean()
loss = (scores ** 2).mean() + 0.1 * penalty
loss.backward()

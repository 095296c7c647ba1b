# after: beginner question "'NoneType' object has no attribute 'backward'" (a custom loss function that computes but never returns)
# expect: explained backward-on-number
# mentions: `loss` | return
import torch


def rmse_loss(pred, target):
    err = torch.sqrt(((pred - target) ** 2).mean())


w = torch.randn(2, requires_grad=True)
pred = torch.randn(5, 2) @ w
loss = rmse_loss(pred, torch.zeros(5))
loss.backward()

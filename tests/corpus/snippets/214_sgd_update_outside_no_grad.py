# after: fastai book chapter 4 style manual SGD, with the update written without `with torch.no_grad():`
# expect: explained leaf-inplace
# mentions: `weights` | with torch.no_grad(): weights -= lr * weights.grad
import torch

xs = torch.randn(10, 2)
ys = xs @ torch.tensor([1.5, -2.0])
weights = torch.zeros(2, requires_grad=True)
lr = 0.1

for step in range(3):
    preds = xs @ weights
    mse = ((preds - ys) ** 2).mean()
    mse.backward()
    weights -= lr * weights.grad
    weights.grad.zero_()

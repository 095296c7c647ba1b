# after: Stack Overflow "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed" (weights = torch.randn(..., requires_grad=True) * 0.01, then the update finds weights.grad None)
# expect: explained grad-is-none
# mentions: line 9 | weights = (torch.randn(3, 1) * 0.01).requires_grad_()
import torch

X = torch.randn(20, 3)
y = X @ torch.tensor([[2.0], [-1.0], [0.5]])

weights = torch.randn(3, 1, requires_grad=True) * 0.01
bias = torch.zeros(1, requires_grad=True)
lr = 0.1

for epoch in range(5):
    preds = X @ weights + bias
    loss = ((preds - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        weights -= lr * weights.grad
        bias -= lr * bias.grad

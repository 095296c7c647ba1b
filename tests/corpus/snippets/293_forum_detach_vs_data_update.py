# after: PyTorch forum "What is the difference between .data and .detach()?" (a manual update through .data, then through torch.no_grad(), same numbers)
# expect: match
import torch

torch.manual_seed(0)
w1 = torch.randn(3, requires_grad=True)
w2 = w1.detach().clone().requires_grad_(True)
x = torch.randn(3)
for step in range(3):
    loss1 = ((w1 * x).sum() - 1) ** 2
    loss1.backward()
    w1.data -= 0.1 * w1.grad.data
    w1.grad.data.zero_()

    loss2 = ((w2 * x).sum() - 1) ** 2
    loss2.backward()
    with torch.no_grad():
        w2 -= 0.1 * w2.grad
    w2.grad.zero_()
print(w1, w2, torch.equal(w1, w2))
print(w1.is_leaf, w2.is_leaf, w1.detach().requires_grad)

# after: PyTorch docs torch.optim.LBFGS (optimizer.step(closure) re-evaluating the loss)
# expect: match
import torch
torch.manual_seed(0)
x = torch.randn(20, 2)
y = x @ torch.tensor([2.0, -1.0]) + 0.5
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.LBFGS([w, b], lr=0.5, max_iter=20)
def closure():
    optimizer.zero_grad()
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    return loss
for i in range(3):
    loss = optimizer.step(closure)
    print(i, loss.item())
print(w, b)

# after: PyTorch forum "Why is the grad of my weights None?" (weights made with requires_grad=True, then scaled on the same line)
# expect: match warns non-leaf-grad
# mentions: `w`
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]])

w = torch.randn(3, 1, requires_grad=True) * 0.01
b = torch.zeros(1, requires_grad=True)

pred = x @ w + b
loss = ((pred - y) ** 2).mean()
loss.backward()
print(loss.item())
print(w.grad)
print(b.grad)

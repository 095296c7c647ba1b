# after: Stack Overflow "unsupported operand type(s) for *: 'float' and 'NoneType'" (gradient descent written as w = w - lr * w.grad, which makes w a new, non-leaf tensor)
# expect: explained grad-is-none
# mentions: `w` | Line 15 | with torch.no_grad(): w -= lr * w.grad
import torch

x = torch.linspace(0, 1, 10)
y = 3 * x + 1
w = torch.randn(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1

for epoch in range(3):
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    w = w - lr * w.grad
    b = b - lr * b.grad

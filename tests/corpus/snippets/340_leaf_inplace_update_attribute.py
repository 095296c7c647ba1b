# after: linear regression from scratch with the parameters on an object (self.w -= lr * self.w.grad, outside torch.no_grad())
# expect: explained leaf-inplace
# mentions: `self.w` is a leaf | with torch.no_grad(): self.w -= self.lr * self.w.grad
import torch

class LinReg:
    def __init__(self):
        self.w = torch.zeros(2, requires_grad=True)
        self.lr = 0.1

    def step(self, X, y):
        loss = ((X @ self.w - y) ** 2).mean()
        loss.backward()
        self.w -= self.lr * self.w.grad

X = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = torch.tensor([1.0, 2.0])
reg = LinReg()
reg.step(X, y)

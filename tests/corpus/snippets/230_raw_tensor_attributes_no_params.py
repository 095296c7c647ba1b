# after: Stack Overflow "optimizer got an empty parameter list" (weights stored as plain tensors on an nn.Module)
# expect: explained empty-parameters
# mentions: `self.weights` | line 11 | self.weights = nn.Parameter(torch.randn(1))
import torch
import torch.nn as nn


class LinearRegression(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = torch.randn(1, requires_grad=True)
        self.bias = torch.randn(1, requires_grad=True)

    def forward(self, x):
        return self.weights * x + self.bias


model = LinearRegression()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

# after: PyTorch forum "'NoneType' object has no attribute 'zero_'" (a layer's gradient zeroed before the first backward)
# expect: explained grad-is-none
# mentions: `model.fc.weight` | model.fc.weight.grad is not None
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


model = Net()
for step in range(2):
    model.fc.weight.grad.zero_()
    model(torch.randn(4, 3)).sum().backward()

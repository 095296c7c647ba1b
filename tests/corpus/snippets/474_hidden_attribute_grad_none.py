# after: PyTorch forum "why is the gradient of my intermediate layer None" (a forward that keeps its hidden activation in self.hidden, read with model.hidden.grad after backward)
# expect: match warns non-leaf-grad
# mentions: model.hidden | retain_grad()
import torch
import torch.nn as nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 1)

    def forward(self, x):
        self.hidden = torch.sigmoid(self.fc1(x))
        return self.fc2(self.hidden)


torch.manual_seed(10)
model = TwoLayer()
out = model(torch.randn(4, 3)).sum()
out.backward()
print(model.hidden.grad)
print(model.fc1.weight.grad.shape)

# after: older tutorials moving the whole model with model.cuda()
# expect: refused
# mentions: model.cuda() | CPU only | The lines before line 18 ran
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)


model = Net()
model.cuda()
x = torch.randn(2, 3)
print(model(x))

# after: Stack Overflow "Expected input batch_size (8) to match target batch_size (4)" (x.view(-1, n) with the wrong n before the Linear layer)
# expect: explained batch-size-mismatch
# mentions: `outputs` | `labels` | x.view(x.size(0), -1)
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(x)))
        x = x.view(-1, 8 * 4 * 4)
        return self.fc(x)


net = Net()
criterion = nn.CrossEntropyLoss()
inputs = torch.randn(4, 3, 16, 16)
labels = torch.randint(0, 10, (4,))
outputs = net(inputs)
loss = criterion(outputs, labels)

# after: Stack Overflow "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [28, 28]" (one grayscale digit fed as is)
# expect: explained conv-input-dims
# mentions: `x` | x.unsqueeze(0) | [1, 28, 28]
import torch
import torch.nn as nn


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 13 * 13, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        return self.fc(torch.flatten(x, 1))


model = CNN()
digit = torch.rand(28, 28)
scores = model(digit)

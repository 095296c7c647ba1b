# after: Stack Overflow "shape '[-1, 400]' is invalid for input of size ..." (the blitz LeNet's x.view(-1, 16 * 5 * 5) kept for 28x28 MNIST images)
# expect: explained view-size
# mentions: `x` | x.view(x.size(0), -1) | 1024 numbers
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


net = Net()
images = torch.randn(4, 1, 28, 28)
outputs = net(images)

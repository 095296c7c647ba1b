# after: PyTorch CIFAR-10 tutorial Net (conv, pool, fc) on random images with momentum SGD
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(4 * 3 * 3, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn(self.conv1(x))))
        x = torch.flatten(x, 1)
        return self.fc1(x)


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
inputs = torch.randn(8, 3, 8, 8)
labels = torch.randint(0, 10, (8,))
for epoch in range(2):
    running_loss = 0.0
    for i in range(5):
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print(f'[{epoch + 1}] loss: {running_loss / 5:.3f}')
net.eval()
with torch.no_grad():
    _, predicted = torch.max(net(inputs), 1)
print(predicted)

# after: PyTorch "A Gentle Introduction to torch.autograd", "Exclusion from the DAG" (a.requires_grad, freezing every parameter, replacing model.fc, optimizing only the classifier), a small CNN in place of resnet18
# expect: match
import torch
from torch import nn, optim

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)

a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, 1000)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


model = TinyResNet()

# Freeze all the parameters in the network
for param in model.parameters():
    param.requires_grad = False

model.fc = nn.Linear(8, 10)

# Optimize only the classifier
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)

data = torch.rand(4, 3, 16, 16)
labels = torch.rand(4, 10)
for step in range(3):
    prediction = model(data)
    loss = (prediction - labels).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())

print(model.conv1.weight.grad is None, model.fc.weight.grad is not None)
print(sum(p.numel() for p in model.parameters() if p.requires_grad))

# after: PyTorch "A Gentle Introduction to torch.autograd", "Exclusion from the DAG" (x, y, z with requires_grad, then a small model whose every parameter gets requires_grad_(False) except a new classifier head, the optimizer over model.fc.parameters() only)
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

torch.manual_seed(4)


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
        self.fc = nn.Linear(16, 1000)

    def forward(self, x):
        return self.fc(self.features(x))


model = TinyNet()
for param in model.parameters():
    param.requires_grad_(False)
model.fc = nn.Linear(16, 10)
optimizer = optim.SGD(model.fc.parameters(), lr=1e-2, momentum=0.9)
data = torch.rand(4, 8)
labels = torch.randint(0, 10, (4,))
for _ in range(3):
    prediction = model(data)
    loss = nn.functional.cross_entropy(prediction, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(loss.item())
print(model.features[0].weight.grad, model.fc.weight.grad.abs().sum())
print([n for n, p in model.named_parameters() if p.requires_grad])

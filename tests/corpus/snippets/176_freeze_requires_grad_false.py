# after: PyTorch docs "Autograd mechanics: Setting requires_grad" (freeze a pretrained part, optimize only the new head)
# expect: match
import torch
from torch import nn, optim

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
for param in model[0].parameters():
    param.requires_grad = False

model[2] = nn.Linear(6, 3)
optimizer = optim.SGD(model[2].parameters(), lr=1e-2, momentum=0.9)

x = torch.randn(5, 4)
target = torch.tensor([0, 1, 2, 1, 0])
for _ in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), target)
    loss.backward()
    optimizer.step()
print(model[0].weight.grad)
print(model[2].weight.grad.shape)
print(sum(p.numel() for p in model.parameters() if p.requires_grad))

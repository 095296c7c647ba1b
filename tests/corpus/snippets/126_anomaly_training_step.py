# after: debugging advice on Stack Overflow: leave torch.autograd.set_detect_anomaly(True) on while training, then switch it off
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3)
target = torch.randn(4, 1)
for _ in range(3):
    opt.zero_grad()
    loss = ((model(x) - target) ** 2).mean()
    loss.backward()
    opt.step()
print("anomaly on:", torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(False)
print("anomaly on:", torch.is_anomaly_enabled())
loss = ((model(x) - target) ** 2).mean()

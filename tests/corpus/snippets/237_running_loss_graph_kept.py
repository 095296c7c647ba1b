# after: Stack Overflow "Trying to backward through the graph a second time" (a running total of the loss kept as a tensor and backpropagated each batch)
# expect: explained backward-twice
# mentions: `running_loss` | running_loss += loss.item()
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
running_loss = 0
for batch in range(3):
    xb = torch.randn(4, 2)
    loss = model(xb).pow(2).mean()
    running_loss = running_loss + loss
    opt.zero_grad()
    running_loss.backward()
    opt.step()

# after: training loops that call scheduler.step() at the start of each epoch, before any optimizer.step() (torch warns "Detected call of `lr_scheduler.step()` before `optimizer.step()`" and the first learning rate is skipped)
# expect: match warns scheduler-before-optimizer
# mentions: scheduler.step() | optimizer.step()
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
x, y = torch.randn(8, 3), torch.randn(8, 1)
for epoch in range(4):
    scheduler.step()
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    print(epoch, optimizer.param_groups[0]["lr"], loss.item())

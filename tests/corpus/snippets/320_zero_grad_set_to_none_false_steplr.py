# after: PyTorch docs optimizer.zero_grad(set_to_none=False) and lr_scheduler.StepLR (get_last_lr each epoch, grads kept as zeros)
# expect: match
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
x = torch.randn(10, 3)
y = torch.randn(10, 1)
for epoch in range(6):
    optimizer.zero_grad(set_to_none=False)
    print(epoch, model.bias.grad, scheduler.get_last_lr())
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
print(model.weight, optimizer.param_groups[0]["lr"])

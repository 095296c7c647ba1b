# after: PyTorch docs torch.optim "How to adjust learning rate" (StepLR, ExponentialLR chained)
# expect: match
import torch
from torch.optim.lr_scheduler import ExponentialLR, StepLR, MultiStepLR

model = [torch.nn.Parameter(torch.randn(2, 2, requires_grad=True))]
optimizer = torch.optim.SGD(model, 0.1)
scheduler1 = ExponentialLR(optimizer, gamma=0.9)
scheduler2 = MultiStepLR(optimizer, milestones=[3, 6], gamma=0.1)
for epoch in range(8):
    optimizer.zero_grad()
    loss = (model[0] ** 2).sum()
    loss.backward()
    optimizer.step()
    scheduler1.step()
    scheduler2.step()
    print(epoch, scheduler1.get_last_lr(), optimizer.param_groups[0]["lr"])
w = model[0]

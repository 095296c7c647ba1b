# after: PyTorch docs torch.optim.lr_scheduler (MultiStepLR, CosineAnnealingLR, ReduceLROnPlateau on a validation loss, OneCycleLR's lrs)
# expect: match warns step-without-gradients
# mentions: `opt1.step()` on line 19 | no weight changed
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, MultiStepLR, OneCycleLR, ReduceLROnPlateau

model = nn.Linear(2, 1)
opt1 = torch.optim.SGD(model.parameters(), lr=0.1)
s1 = MultiStepLR(opt1, milestones=[2, 4], gamma=0.1)
opt2 = torch.optim.SGD(model.parameters(), lr=0.1)
s2 = CosineAnnealingLR(opt2, T_max=5, eta_min=0.001)
opt3 = torch.optim.SGD(model.parameters(), lr=0.1)
s3 = ReduceLROnPlateau(opt3, mode="min", factor=0.5, patience=1)
opt4 = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
s4 = OneCycleLR(opt4, max_lr=1.0, total_steps=6)
val_losses = [1.0, 0.9, 0.95, 0.97, 0.99, 0.5]
for epoch, val_loss in enumerate(val_losses):
    opt1.step(); opt2.step(); opt3.step(); opt4.step()
    s1.step(); s2.step(); s3.step(val_loss)
    if epoch < 5:
        s4.step()
    print(epoch, s1.get_last_lr(), round(s2.get_last_lr()[0], 6), opt3.param_groups[0]["lr"], round(opt4.param_groups[0]["lr"], 6))

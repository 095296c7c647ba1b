# after: EMA and SWA posts (an EMA class keeping shadow copies with shadow[name] = decay * shadow[name] + (1 - decay) * param.data under torch.no_grad; torch.optim.swa_utils.AveragedModel for SWA and for EMA with get_ema_multi_avg_fn(0.9), swa_model.update_parameters(model) after swa_start, SWALR(optimizer, swa_lr=0.05), torch.optim.swa_utils.update_bn over a list of batches to recompute BatchNorm statistics, predictions with swa_model(x))
# expect: refused
# mentions: torch.optim.swa_utils
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn

torch.manual_seed(3)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=2)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
swa_start = 3


class EMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = {}
        for name, param in model.named_parameters():
            if param.requires_grad:
                self.shadow[name] = param.data.clone()

    def update(self, model):
        with torch.no_grad():
            for name, param in model.named_parameters():
                if param.requires_grad:
                    self.shadow[name] = (
                        self.decay * self.shadow[name] + (1 - self.decay) * param.data
                    )


ema = EMA(model, 0.9)
loader = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
for epoch in range(6):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        ema.update(model)
        ema_model.update_parameters(model)
    if epoch > swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
    print(epoch, round(loss.item(), 5), optimizer.param_groups[0]["lr"])

update_bn(((x,) for x, _ in loader), swa_model)
print(swa_model.n_averaged)
print(swa_model.module[1].running_mean)
print(torch.allclose(ema.shadow["0.weight"], ema_model.module[0].weight, atol=1e-6))
swa_model.eval()
with torch.no_grad():
    print(swa_model(loader[0][0]))

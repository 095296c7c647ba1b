# after: PyTorch docs "per-parameter options" (param groups with their own lr), RMSprop/Adagrad, LambdaLR warmup, clip_grad_value_
# expect: match
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.RMSprop([
    {"params": model[0].parameters()},
    {"params": model[2].parameters(), "lr": 1e-3},
], lr=1e-2, momentum=0.9, alpha=0.9)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: min(1.0, (epoch + 1) / 3))
ada = torch.optim.Adagrad(nn.Linear(2, 2).parameters(), lr=0.1)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
for epoch in range(4):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)
    opt.step()
    sched.step()
    print(epoch, loss.item(), [g["lr"] for g in opt.param_groups])
print(opt.state_dict()["param_groups"][1]["lr"], model[2].weight)

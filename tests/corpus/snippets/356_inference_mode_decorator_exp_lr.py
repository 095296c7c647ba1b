# after: PyTorch docs torch.inference_mode as a decorator, ExponentialLR, SequentialLR warmup then cosine
# expect: match warns step-without-gradients
# mentions: `opt.step()` on line 18 | every parameter of `opt` had `.grad` None
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(2, 1)
@torch.inference_mode()
def predict(x):
    return model(x)
p = predict(torch.ones(3, 2))
print(p.requires_grad, torch.is_inference(p))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=2)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[2])
for i in range(5):
    opt.step()
    sched.step()
    print(i, round(opt.param_groups[0]["lr"], 6))
opt2 = torch.optim.SGD(model.parameters(), lr=1.0)
e = torch.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.5)
e.step(); e.step()
print(e.get_last_lr())

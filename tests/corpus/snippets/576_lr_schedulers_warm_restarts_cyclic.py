# after: learning-rate scheduler posts that plot every scheduler (CosineAnnealingWarmRestarts(T_0=3, T_mult=2, eta_min) stepped with a fractional epoch, OneCycleLR(max_lr, total_steps, pct_start, anneal_strategy='linear'), LambdaLR with a warmup lambda, MultiStepLR, CyclicLR(mode='triangular2'), PolynomialLR, SequentialLR of LinearLR then ExponentialLR, ChainedScheduler; scheduler.get_last_lr() and optimizer.param_groups[0]['lr'] printed each step)
# expect: match
import torch
import torch.nn as nn
from torch.optim import lr_scheduler

torch.manual_seed(0)
model = nn.Linear(3, 1)
x, y = torch.randn(10, 3), torch.randn(10, 1)


def make_opt():
    return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def run(name, opt, sched, steps=8, fractional=False):
    lrs = []
    for step in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if fractional:
            sched.step(step + 0.5)
        else:
            sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 6))
    print(name, lrs, [round(v, 6) for v in sched.get_last_lr()])


opt = make_opt()
run(
    "warm restarts",
    opt,
    lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001),
)
opt = make_opt()
run(
    "warm restarts frac", opt, lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2), fractional=True
)
opt = make_opt()
run(
    "one cycle",
    opt,
    lr_scheduler.OneCycleLR(
        opt, max_lr=0.5, total_steps=8, pct_start=0.25, anneal_strategy="linear"
    ),
)
opt = make_opt()
warmup = 3
run(
    "lambda",
    opt,
    lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: min(1.0, (epoch + 1) / warmup)),
)
opt = make_opt()
run("multistep", opt, lr_scheduler.MultiStepLR(opt, milestones=[2, 5], gamma=0.5))
opt = make_opt()
run(
    "cyclic",
    opt,
    lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2"),
)
opt = make_opt()
run("poly", opt, lr_scheduler.PolynomialLR(opt, total_iters=6, power=2.0))
opt = make_opt()
s1 = lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
s2 = lr_scheduler.ExponentialLR(opt, gamma=0.8)
run("sequential", opt, lr_scheduler.SequentialLR(opt, schedulers=[s1, s2], milestones=[3]))
opt = make_opt()
c1 = lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
c2 = lr_scheduler.ExponentialLR(opt, gamma=0.9)
run("chained", opt, lr_scheduler.ChainedScheduler([c1, c2]))
print(model.weight, model.bias)

# after: PINN tutorials for the heat equation u_t = alpha u_xx (inputs stacked as one tensor xt = torch.cat([x, t], 1) with requires_grad, the gradient's columns sliced as u_x = grads[:, 0:1] and u_t = grads[:, 1:2], u_xx by differentiating u_x again, an initial-condition loss, a scheduler)
# expect: match
import math

import torch
import torch.nn as nn

torch.manual_seed(2)
alpha = 0.1
net = nn.Sequential(nn.Linear(2, 12), nn.Tanh(), nn.Linear(12, 12), nn.Tanh(), nn.Linear(12, 1))
opt = torch.optim.Adam(net.parameters(), lr=5e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)

x = torch.rand(24, 1)
t = torch.rand(24, 1)
xt = torch.cat([x, t], dim=1).requires_grad_(True)
x_ic = torch.rand(8, 1)
xt_ic = torch.cat([x_ic, torch.zeros_like(x_ic)], dim=1)
u_ic = torch.sin(math.pi * x_ic)

for it in range(10):
    opt.zero_grad()
    u = net(xt)
    grads = torch.autograd.grad(u, xt, torch.ones_like(u), create_graph=True)[0]
    u_x, u_t = grads[:, 0:1], grads[:, 1:2]
    u_xx = torch.autograd.grad(u_x, xt, torch.ones_like(u_x), create_graph=True)[0][:, 0:1]
    loss_f = ((u_t - alpha * u_xx) ** 2).mean()
    loss_ic = ((net(xt_ic) - u_ic) ** 2).mean()
    loss = loss_f + 10 * loss_ic
    loss.backward()
    opt.step()
    sched.step()
    print(it, round(loss.item(), 6), sched.get_last_lr())
print(xt.grad is None, net[0].weight.grad.shape)

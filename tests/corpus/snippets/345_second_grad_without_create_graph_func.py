# after: PyTorch forum "element 0 of tensors does not require grad" in a physics-informed network (u_x from autograd.grad without create_graph=True, then u_xx from it)
# expect: explained no-grad-to-compute
# mentions: `u_x` | create_graph=True
import torch
import torch.nn as nn

torch.manual_seed(0)
pinn = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
t = torch.linspace(0, 1, 8).reshape(-1, 1).requires_grad_(True)
u = pinn(t)
u_x = torch.autograd.grad(u, t, torch.ones_like(u))[0]
u_xx = torch.autograd.grad(u_x, t, torch.ones_like(u_x))[0]

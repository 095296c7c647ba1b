# after: PyTorch forum "step() missing 1 required positional argument: 'closure'" (a PINN training loop switched from Adam to LBFGS without changing optimizer.step())
# expect: explained optimizer-closure
# mentions: lbfgs | lbfgs.step(closure)
import torch
import torch.nn as nn

torch.manual_seed(4)
pinn = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
x_col = torch.rand(16, 1, requires_grad=True)
lbfgs = torch.optim.LBFGS(pinn.parameters(), lr=0.5)
for it in range(3):
    lbfgs.zero_grad()
    u = pinn(x_col)
    u_x = torch.autograd.grad(u, x_col, torch.ones_like(u), create_graph=True)[0]
    loss = ((u_x - torch.cos(x_col)) ** 2).mean()
    loss.backward()
    lbfgs.step()
    print(it, loss.item())

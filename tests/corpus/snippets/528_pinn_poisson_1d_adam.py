# after: physics-informed neural network tutorials (1-D Poisson u'' = -pi^2 sin(pi x) on [0, 1]: collocation points with requires_grad, u_x and u_xx from torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True), a residual loss plus boundary loss, Adam)
# expect: match
import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class PINN(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1)
        )

    def forward(self, x):
        return self.net(x)


model = PINN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x_col = torch.rand(32, 1, requires_grad=True)
x_bc = torch.tensor([[0.0], [1.0]])
u_bc = torch.zeros(2, 1)


def pde_residual(x):
    u = model(x)
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
    f = -(math.pi**2) * torch.sin(math.pi * x)
    return u_xx - f


for epoch in range(15):
    optimizer.zero_grad()
    loss_pde = torch.mean(pde_residual(x_col) ** 2)
    loss_bc = torch.mean((model(x_bc) - u_bc) ** 2)
    loss = loss_pde + loss_bc
    loss.backward()
    optimizer.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch}: loss_pde={loss_pde.item():.6f} loss_bc={loss_bc.item():.6f}")

x_test = torch.linspace(0, 1, 5).view(-1, 1)
with torch.no_grad():
    u_pred = model(x_test)
u_exact = torch.sin(math.pi * x_test)
print(torch.cat([x_test, u_pred, u_exact], dim=1))
print("max error", (u_pred - u_exact).abs().max().item())

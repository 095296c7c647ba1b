# after: "Neural ODEs from scratch" notebooks without torchdiffeq (an ODEFunc nn.Module f(t, y) with a Tanh MLP, a fixed-step rk4_step k1..k4 with dt / 6 * (k1 + 2 k2 + 2 k3 + k4), odeint written as a loop over a time grid collecting torch.stack(ys), trained by backprop through the unrolled solver on a spiral's true trajectory from the linear system dy/dt = y^3 @ A, loss = torch.mean(torch.abs(pred_y - batch_y)), RMSprop)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(9)
true_y0 = torch.tensor([[2.0, 0.0]])
t = torch.linspace(0.0, 2.0, 11)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y**3, true_A)


def rk4_step(func, t0, dt, y0):
    k1 = func(t0, y0)
    k2 = func(t0 + dt / 2, y0 + dt * k1 / 2)
    k3 = func(t0 + dt / 2, y0 + dt * k2 / 2)
    k4 = func(t0 + dt, y0 + dt * k3)
    return y0 + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def odeint(func, y0, t, substeps=4):
    ys = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        dt = (t1 - t0) / substeps
        for i in range(substeps):
            y = rk4_step(func, t0 + i * dt, dt, y)
        ys.append(y)
    return torch.stack(ys)


with torch.no_grad():
    true_y = odeint(Lambda(), true_y0, t)


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        return self.net(y**3)


func = ODEFunc()
optimizer = torch.optim.RMSprop(func.parameters(), lr=1e-3)
for itr in range(1, 4):
    optimizer.zero_grad()
    pred_y = odeint(func, true_y0, t)
    loss = torch.mean(torch.abs(pred_y - true_y))
    loss.backward()
    optimizer.step()
    print(f"Iter {itr:04d} | Total Loss {loss.item():.6f}")
print(true_y.shape, true_y[-1], pred_y[-1])

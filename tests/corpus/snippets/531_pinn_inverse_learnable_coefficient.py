# after: inverse-problem PINN examples (Burgers-style u_t + lam1 * u * u_x - lam2 * u_xx with the unknown coefficients as nn.Parameter on the model, x and t separate leaves with requires_grad=True, data loss on noisy observations, the coefficients printed as they are learned)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(3)


class InversePINN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(2, 10), nn.Tanh(), nn.Linear(10, 1))
        self.lambda1 = nn.Parameter(torch.tensor([0.5]))
        self.lambda2 = nn.Parameter(torch.tensor([-2.0]))

    def forward(self, x, t):
        return self.fc(torch.cat([x, t], dim=1))

    def residual(self, x, t):
        u = self(x, t)
        ones = torch.ones_like(u)
        u_t = torch.autograd.grad(u, t, ones, retain_graph=True, create_graph=True)[0]
        u_x = torch.autograd.grad(u, x, ones, retain_graph=True, create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
        nu = torch.exp(self.lambda2)
        return u, u_t + self.lambda1 * u * u_x - nu * u_xx


model = InversePINN()
x = torch.rand(20, 1, requires_grad=True)
t = torch.rand(20, 1, requires_grad=True)
u_obs = torch.sin(3 * x.detach()) * torch.exp(-t.detach()) + 0.01 * torch.randn(20, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(8):
    optimizer.zero_grad()
    u_pred, f_pred = model.residual(x, t)
    loss = torch.mean((u_obs - u_pred) ** 2) + torch.mean(f_pred**2)
    loss.backward()
    optimizer.step()
    print(step, f"{loss.item():.5e}", model.lambda1.item(), torch.exp(model.lambda2).item())
print(model.lambda1.grad, model.lambda2.grad)
print(x.grad is not None, t.grad.shape)

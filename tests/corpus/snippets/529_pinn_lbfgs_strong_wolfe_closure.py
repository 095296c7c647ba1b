# after: PINN code that finishes with L-BFGS (torch.optim.LBFGS(model.parameters(), lr=1, max_iter=20, history_size=10, line_search_fn="strong_wolfe"), a closure that zeroes grads, computes the ODE residual u' + u with autograd.grad and returns the loss, iteration counts read from optimizer.state[first parameter])
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(1, 10), nn.Tanh(), nn.Linear(10, 1))
t = torch.linspace(0, 2, 20).reshape(-1, 1).requires_grad_(True)
t0 = torch.zeros(1, 1)

optimizer = torch.optim.LBFGS(
    model.parameters(), lr=1.0, max_iter=20, history_size=10, line_search_fn="strong_wolfe"
)
calls = []


def closure():
    optimizer.zero_grad()
    u = model(t)
    du_dt = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
    residual = du_dt + u
    loss = (residual**2).mean() + (model(t0) - 1.0).pow(2).sum()
    loss.backward()
    calls.append(loss.item())
    return loss


for outer in range(2):
    loss = optimizer.step(closure)
    print(outer, loss.item(), len(calls))

state = optimizer.state[next(iter(model.parameters()))]
print(state["func_evals"], state["n_iter"])
with torch.no_grad():
    print(model(torch.tensor([[0.0], [1.0], [2.0]])).squeeze(1))
print(torch.exp(-torch.tensor([0.0, 1.0, 2.0])))

# after: Lilian Weng-style / "Sinkhorn distances in PyTorch" posts (a cost matrix C = torch.cdist(x, y, p=2) ** 2 between two point clouds, uniform marginals mu and nu, log-domain Sinkhorn iterations u = eps * (log mu - logsumexp(M(u, v), dim=-1)) + u with M = (-C + u[:, None] + v[None, :]) / eps, the transport plan pi = exp(M(u, v)), cost = (pi * C).sum(), gradients of the cost with respect to the source points, and a few SGD steps moving them)
# expect: match
import torch

torch.manual_seed(19)
n, m = 6, 5
x = torch.randn(n, 2, requires_grad=True)
y = torch.randn(m, 2) + torch.tensor([2.0, 0.0])
eps = 0.1
mu = torch.full((n,), 1.0 / n)
nu = torch.full((m,), 1.0 / m)


def M(C, u, v):
    return (-C + u.unsqueeze(-1) + v.unsqueeze(-2)) / eps


def sinkhorn(x, y, max_iter=50, thresh=1e-3):
    C = torch.cdist(x, y, p=2) ** 2
    u = torch.zeros_like(mu)
    v = torch.zeros_like(nu)
    for i in range(max_iter):
        u1 = u
        u = eps * (torch.log(mu + 1e-8) - torch.logsumexp(M(C, u, v), dim=-1)) + u
        v = eps * (torch.log(nu + 1e-8) - torch.logsumexp(M(C, u, v).transpose(-2, -1), dim=-1)) + v
        err = (u - u1).abs().sum(-1).mean()
        if err.item() < thresh:
            break
    pi = torch.exp(M(C, u, v))
    cost = torch.sum(pi * C)
    return cost, pi, C, i


optimizer = torch.optim.SGD([x], lr=0.5)
for step in range(3):
    optimizer.zero_grad()
    cost, pi, C, iters = sinkhorn(x, y)
    cost.backward()
    optimizer.step()
    print(step, iters, round(cost.item(), 6))
print(pi.sum(1), pi.sum(0))
print(x.grad)

# after: Gaussian-process regression from scratch (an RBF kernel from torch.cdist with log_lengthscale, log_signal and log_noise as leaves, K = k(X, X) + noise * I, L = torch.linalg.cholesky(K), alpha = torch.cholesky_solve(y, L), the negative log marginal likelihood 0.5 * y^T alpha + sum(log diag L) + n/2 log 2 pi, Adam on the log hyperparameters, then the predictive mean and variance with torch.linalg.solve_triangular and logdet checked against 2 * sum(log diag L))
# expect: match
import math

import torch

torch.manual_seed(4)
X = torch.linspace(-2, 2, 12).unsqueeze(-1)
y = torch.sin(2 * X) + 0.1 * torch.randn_like(X)
X_test = torch.linspace(-2.5, 2.5, 5).unsqueeze(-1)

log_lengthscale = torch.tensor(0.0, requires_grad=True)
log_signal = torch.tensor(0.0, requires_grad=True)
log_noise = torch.tensor(-2.0, requires_grad=True)


def rbf(A, B):
    d2 = torch.cdist(A, B) ** 2
    return log_signal.exp() ** 2 * torch.exp(-0.5 * d2 / log_lengthscale.exp() ** 2)


def neg_log_marginal_likelihood():
    n = X.shape[0]
    K = rbf(X, X) + log_noise.exp() ** 2 * torch.eye(n)
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y, L)
    return 0.5 * (y.T @ alpha).squeeze() + torch.log(torch.diagonal(L)).sum() + 0.5 * n * math.log(2 * math.pi)


optimizer = torch.optim.Adam([log_lengthscale, log_signal, log_noise], lr=0.05)
for it in range(10):
    optimizer.zero_grad()
    nll = neg_log_marginal_likelihood()
    nll.backward()
    optimizer.step()
print(f"nll {nll.item():.4f}", log_lengthscale.exp().item(), log_noise.exp().item())

K = rbf(X, X) + log_noise.exp() ** 2 * torch.eye(X.shape[0])
L = torch.linalg.cholesky(K)
logdet_from_L = 2 * torch.log(torch.diagonal(L)).sum()
print(torch.allclose(logdet_from_L, torch.logdet(K), atol=1e-4))
K_s = rbf(X, X_test)
v = torch.linalg.solve_triangular(L, K_s, upper=False)
mean = K_s.T @ torch.cholesky_solve(y, L)
var = torch.diagonal(rbf(X_test, X_test)) - (v**2).sum(0)
objective = mean.sum() + var.sum()
objective.backward()
print(mean.squeeze(), var)

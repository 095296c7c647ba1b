# after: Gaussian-process code whose kernel matrix has duplicated inputs and no noise or jitter on the diagonal (K = rbf(X, X) with X holding the same point twice), so torch.linalg.cholesky(K) raises "The factorization could not be completed because the input is not positive-definite"
# expect: explained not-positive-definite
# mentions: K | torch.eye
import torch

X = torch.tensor([[0.0], [0.5], [0.5], [1.0]])
y = torch.tensor([[0.1], [0.4], [0.5], [0.9]])
log_lengthscale = torch.tensor(0.0, requires_grad=True)


def rbf(A, B):
    d2 = (A - B.T) ** 2
    return torch.exp(-0.5 * d2 / log_lengthscale.exp() ** 2)


K = rbf(X, X)
L = torch.linalg.cholesky(K)
alpha = torch.cholesky_solve(y, L)
nll = 0.5 * (y.T @ alpha).squeeze() + torch.log(torch.diagonal(L)).sum()
nll.backward()

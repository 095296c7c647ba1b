# after: PyTorch docs torch.linalg (eigh of a symmetric matrix with a loss on the eigenvalues, svdvals and the nuclear norm, qr, cholesky of an SPD matrix and a Gaussian log-likelihood from it, matrix_exp of a skew-symmetric matrix giving a rotation), all differentiated
# expect: match
import torch

torch.manual_seed(13)
X = torch.randn(4, 4, dtype=torch.float64)
A = (X + X.T).requires_grad_()
L, Q = torch.linalg.eigh(A)
(L * torch.arange(1.0, 5.0, dtype=torch.float64)).sum().backward()
print(L)
print(A.grad)

M = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
s = torch.linalg.svdvals(M)
s.sum().backward()
print(s, M.grad)
M.grad = None
U, S, Vh = torch.linalg.svd(M, full_matrices=False)
S.sum().backward()
print(torch.allclose(M.grad, U.detach() @ Vh.detach()))
M.grad = None
nuc = torch.linalg.matrix_norm(M, ord='nuc')
nuc.backward()
print(nuc, torch.allclose(nuc, s.sum()))

Qr, R = torch.linalg.qr(M)
(Qr.sum() + R.diagonal().sum()).backward()
print(R, M.grad.sum())

B = torch.randn(3, 3, dtype=torch.float64)
spd = (B @ B.T + 3 * torch.eye(3, dtype=torch.float64)).requires_grad_()
Lc = torch.linalg.cholesky(spd)
y = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
z = torch.linalg.solve_triangular(Lc, y.unsqueeze(1), upper=False)
nll = 0.5 * (z ** 2).sum() + Lc.diagonal().log().sum()
nll.backward()
print(Lc, nll, spd.grad)

theta = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
K = torch.stack([torch.stack([torch.zeros((), dtype=torch.float64), -theta]), torch.stack([theta, torch.zeros((), dtype=torch.float64)])])
R2 = torch.linalg.matrix_exp(K)
R2[1, 0].backward()
print(R2, theta.grad, torch.cos(theta.detach()))

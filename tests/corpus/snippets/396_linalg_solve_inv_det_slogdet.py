# after: PyTorch docs torch.linalg examples (solve vs inv @ b, det and its gradient det * inv(A).T, slogdet's sign and logabsdet, the gradient of det at a singular matrix, a least-squares regression by the normal equations, matrix_norm and cond)
# expect: match
import torch

torch.manual_seed(12)
A = (torch.randn(3, 3) + 3 * torch.eye(3)).requires_grad_()
b = torch.randn(3, 2, requires_grad=True)

x = torch.linalg.solve(A, b)
x.sum().backward()
print(x)
print(A.grad, b.grad)
gA = A.grad.clone()
A.grad = None; b.grad = None
x2 = torch.linalg.inv(A) @ b
x2.sum().backward()
print(torch.allclose(x, x2, atol=1e-6), torch.allclose(gA, A.grad, atol=1e-5))

A.grad = None
d = torch.linalg.det(A)
d.backward()
print(d, A.grad)
print(torch.allclose(A.grad, d.detach() * torch.linalg.inv(A.detach()).T, atol=1e-5))

A.grad = None
sign, logabsdet = torch.linalg.slogdet(A)
logabsdet.backward()
print(sign, logabsdet, A.grad)

S = torch.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
ds = torch.det(S)
ds.backward()
print(ds, S.grad)

X = torch.randn(10, 3)
w_true = torch.tensor([[1.0], [-2.0], [0.5]])
y = X @ w_true + 0.01 * torch.randn(10, 1)
Xr = X.clone().requires_grad_()
# The normal equations (lstsq's LAPACK driver gave other last bits once in a full test run)
sol = torch.linalg.solve(Xr.T @ Xr, Xr.T @ y)
sol.sum().backward()
print(sol.squeeze(), Xr.grad.sum())

M = torch.randn(3, 4, requires_grad=True)
fro = torch.linalg.matrix_norm(M)
fro.backward()
print(fro, torch.allclose(M.grad, M.detach() / fro.detach()))
print(torch.linalg.matrix_rank(S.detach()), torch.linalg.svdvals(A.detach()))

# after: orthogonal Procrustes and PCA-by-SVD notebooks (U, S, Vh = torch.linalg.svd(A.T @ B) and R = U @ Vh as the best rotation, a loss through R back to the point clouds; PCA of centred data with torch.linalg.svd(X_c, full_matrices=False), the sign of each component fixed by the largest-magnitude entry as sklearn's svd_flip does, explained_variance = S**2 / (n - 1), a reconstruction loss with k components and its gradient; the docs' caveat that the gradient is only well defined when the loss does not depend on the singular vectors' signs)
# expect: match
import torch

torch.manual_seed(4)
A = torch.randn(10, 3, requires_grad=True)
angle = torch.tensor(0.7)
R_true = torch.tensor([[torch.cos(angle), -torch.sin(angle), 0.0],
                       [torch.sin(angle), torch.cos(angle), 0.0],
                       [0.0, 0.0, 1.0]])
B = A.detach() @ R_true + 0.01 * torch.randn(10, 3)

U, S, Vh = torch.linalg.svd(A.T @ B)
R = U @ Vh
print(torch.allclose(R.T @ R, torch.eye(3), atol=1e-5))
print((R - R_true).abs().max() < 0.05)
aligned = A @ R
loss = (aligned - B).pow(2).sum()
loss.backward()
print(loss.item(), A.grad.norm())


def svd_flip(U, Vh):
    max_abs_cols = torch.argmax(torch.abs(U), dim=0)
    signs = torch.sign(U[max_abs_cols, torch.arange(U.shape[1])])
    return U * signs, Vh * signs[:, None]


X = torch.randn(20, 4) @ torch.randn(4, 4)
X.requires_grad_(True)
X_c = X - X.mean(dim=0)
U, S, Vh = torch.linalg.svd(X_c, full_matrices=False)
U, Vh = svd_flip(U, Vh)
explained_variance = S**2 / (X.shape[0] - 1)
ratio = explained_variance / explained_variance.sum()
print(ratio)
k = 2
components = Vh[:k]
X_proj = X_c @ components.T
X_rec = X_proj @ components
recon = (X_c - X_rec).pow(2).mean()
recon.backward()
print(recon.item(), X.grad.abs().sum())
print(torch.allclose(X_proj, U[:, :k] * S[:k], atol=1e-4))

# after: least squares by the normal equations with a duplicated (scaled) feature column, torch.linalg.solve(X.T @ X, X.T @ y): "torch.linalg.solve: The solver failed because the input matrix is singular"
# expect: explained singular-matrix
# mentions: gram | gram + 1e-3 * torch.eye(gram.shape[-1]) | torch.linalg.lstsq
import torch

torch.manual_seed(0)
X = torch.randn(3, 4)
X = torch.cat([X, X[:, :1] * 2], dim=1)
w = torch.randn(5, 1, requires_grad=True)
y = torch.randn(3, 1)
gram = X.T @ X
beta = torch.linalg.solve(gram, X.T @ y)
loss = (X @ beta - y).pow(2).sum()
loss.backward()

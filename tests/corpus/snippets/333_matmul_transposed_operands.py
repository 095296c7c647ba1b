# after: learners' linear-regression-from-scratch code (X @ theta with theta shaped (1, n) instead of (n, 1))
# expect: explained matmul-shape
# mentions: `X_b` enters as a 100x2 matrix | `theta` as a 1x2 matrix | X_b @ theta.T
import torch

torch.manual_seed(0)
X_b = torch.cat([torch.ones(100, 1), torch.rand(100, 1)], dim=1)
theta = torch.randn(1, 2, requires_grad=True)
y_hat = X_b @ theta

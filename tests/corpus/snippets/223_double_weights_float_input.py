# after: Stack Overflow "expected scalar type Double but found Float" (weights created as float64, data as float32)
# expect: explained dtype-mismatch
# mentions: `theta` | line 6 | dtype=torch.float32
import torch

theta = torch.zeros(3, 1, dtype=torch.float64, requires_grad=True)
X_batch = torch.randn(8, 3)
y_batch = torch.randn(8, 1)
residual = X_batch @ theta - y_batch
cost = (residual ** 2).mean()
cost.backward()

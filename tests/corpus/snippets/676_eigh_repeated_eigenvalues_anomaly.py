# after: forum threads on NaN gradients from torch.linalg.eigh (a loss on the eigenvectors of a matrix with repeated eigenvalues, here the identity, found with torch.autograd.detect_anomaly(): "Function 'LinalgEighBackward0' returned nan values in its 0th output")
# expect: explained nan-gradient
# mentions: LinalgEighBackward0 | eigenvalues are distinct | eigvalsh
import torch

A = torch.eye(3, requires_grad=True)
with torch.autograd.detect_anomaly():
    eigenvalues, eigenvectors = torch.linalg.eigh(A)
    loss = eigenvectors[:, 0].pow(3).sum()
    loss.backward()
print(A.grad)

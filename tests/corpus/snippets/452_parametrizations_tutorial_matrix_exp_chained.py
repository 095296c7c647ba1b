# after: PyTorch tutorial "Parametrizations" (Symmetric and Skew with triu, MatrixExponential on top of Skew making an orthogonal weight, two parametrizations chained on one tensor)
# expect: match
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


torch.manual_seed(5)
layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)
print(A)

layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
print(torch.dist(X.T @ X, torch.eye(3)))
print(layer_orthogonal.parametrizations.weight)

x = torch.randn(4, 3)
y = layer_orthogonal(x)
z = layer_orthogonal(y)
out = (z ** 2).sum()
out.backward()
print(layer_orthogonal.parametrizations.weight.original.grad)
print(layer_orthogonal.bias.grad)

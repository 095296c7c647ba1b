# after: PyTorch tutorial "Parametrizations" (right_inverse, assigning layer.weight, several parametrizations, remove_parametrizations)
# expect: match
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        # (I + X)(I - X)^{-1}
        return torch.linalg.solve(self.Id - X, self.Id + X)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
X = layer.weight
print(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)
print(parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "bias"))

sym = nn.Linear(3, 3)
parametrize.register_parametrization(sym, "weight", Symmetric())
X = torch.rand(3, 3)
X = X + X.T
sym.weight = X
print(torch.allclose(sym.weight, X))
loss = sym(torch.ones(1, 3)).sum()
loss.backward()
print(sym.parametrizations.weight.original.grad)
parametrize.remove_parametrizations(sym, "weight")
print(sym)
print(torch.allclose(sym.weight, X))

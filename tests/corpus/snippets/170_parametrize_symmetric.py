# after: PyTorch tutorial "Parametrizations" (torch.nn.utils.parametrize: Symmetric, register_parametrization)
# expect: match
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())

A = layer.weight
assert torch.allclose(A, A.T)
print(A)
print(layer)
out = layer(torch.ones(2, 3)).sum()
out.backward()
print(layer.parametrizations.weight.original.grad)

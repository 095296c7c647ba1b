# after: torch.nn.utils.parametrize docs and posts on low-rank weights (register_parametrization with a parametrization module holding its own factors U and V, right_inverse omitted, the original weight left unused, remove_parametrizations(leave_parametrized=True) of a Symmetric one)
# expect: match
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P


class LowRank(nn.Module):
    def __init__(self, out_features, in_features, rank):
        super().__init__()
        self.U = nn.Parameter(torch.randn(out_features, rank) * 0.5)
        self.V = nn.Parameter(torch.randn(rank, in_features) * 0.5)

    def forward(self, X):
        return self.U @ self.V


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


torch.manual_seed(3)
layer = nn.Linear(6, 4)
P.register_parametrization(layer, "weight", LowRank(4, 6, 2))
print(P.is_parametrized(layer), torch.linalg.matrix_rank(layer.weight).item())
x = torch.randn(5, 6)
y1 = layer(x)
y2 = layer(x * 2)
loss = (y1 - y2).pow(2).mean()
loss.backward()
lowrank = layer.parametrizations.weight[0]
print(lowrank.U.grad, lowrank.V.grad.sum())
print(layer.parametrizations.weight.original.grad)

sq = nn.Linear(3, 3)
P.register_parametrization(sq, "weight", Symmetric())
print(torch.equal(sq.weight, sq.weight.T))
sq(torch.randn(2, 3)).sum().backward()
print(sq.parametrizations.weight.original.grad)
P.remove_parametrizations(sq, "weight", leave_parametrized=True)
print(type(sq.weight).__name__, torch.equal(sq.weight, sq.weight.T))

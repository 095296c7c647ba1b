# after: low-rank-adaptation posts that register their factorised weight with torch.nn.utils.parametrize.register_parametrization(layer, "weight", LowRank(...), unsafe=True), the flag that skips torch's checks of the shape and dtype a parametrization returns
# expect: refused
# mentions: unsafe=True
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


torch.manual_seed(3)
layer = nn.Linear(6, 4)
P.register_parametrization(layer, "weight", LowRank(4, 6, 2), unsafe=True)
layer(torch.randn(5, 6)).pow(2).mean().backward()
print(layer.parametrizations.weight[0].U.grad)

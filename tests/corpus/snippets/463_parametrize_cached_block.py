# after: PyTorch tutorial "Parametrizations", "Caching the value of a parametrization" (with parametrize.cached(): around two uses of an orthogonal layer's weight)
# expect: refused
# mentions: P.cached()
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


rot = nn.Linear(3, 3)
P.register_parametrization(rot, "weight", Skew())
with P.cached():
    out = rot(rot(torch.randn(2, 3)))
print(out)

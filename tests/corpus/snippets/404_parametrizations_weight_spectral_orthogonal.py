# after: PyTorch docs torch.nn.utils.parametrizations (weight_norm with original0/original1 = g and v, spectral_norm with its power iteration in train mode and not in eval mode, orthogonal keeping W^T W = I while training), the new-style API replacing nn.utils.weight_norm
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils import parametrizations, parametrize

torch.manual_seed(20)
m = parametrizations.weight_norm(nn.Linear(4, 3))
print(parametrize.is_parametrized(m), m.parametrizations.weight.original0.shape, m.parametrizations.weight.original1.shape)
x = torch.randn(5, 4)
m(x).pow(2).sum().backward()
g = m.parametrizations.weight.original0
v = m.parametrizations.weight.original1
print(g.grad.squeeze(), v.grad.abs().sum())
print(torch.allclose(m.weight, g * v / v.norm(dim=1, keepdim=True)))

sn = parametrizations.spectral_norm(nn.Linear(6, 4))
y = sn(torch.randn(3, 6))
sigma = torch.linalg.matrix_norm(sn.weight.detach(), ord=2)
print(sigma)
y.sum().backward()
print(sn.parametrizations.weight.original.grad.abs().sum())
for _ in range(5):
    sn(torch.randn(3, 6))
print(torch.linalg.matrix_norm(sn.weight.detach(), ord=2))
sn.eval()
w1 = sn.weight.detach().clone()
sn(torch.randn(3, 6))
print(torch.equal(w1, sn.weight.detach()))

orth = parametrizations.orthogonal(nn.Linear(3, 3))
opt = torch.optim.SGD(orth.parameters(), lr=0.1)
target = torch.randn(8, 3)
inp = torch.randn(8, 3)
for step in range(3):
    loss = (orth(inp) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    W = orth.weight
    print(step, round(loss.item(), 6), torch.allclose(W.T @ W, torch.eye(3), atol=1e-5))

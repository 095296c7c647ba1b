# after: PyTorch forum "Mismatch in shape" from torch.autograd.grad (grad_outputs of the batch size for a [batch, 1] output)
# expect: explained gradient-shape-mismatch
# mentions: `energy` | torch.ones_like(energy) | [6, 1]
import torch
import torch.nn as nn

potential = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
coords = torch.randn(6, 2, requires_grad=True)
energy = potential(coords)
forces = torch.autograd.grad(energy, coords, grad_outputs=torch.ones(6))[0]

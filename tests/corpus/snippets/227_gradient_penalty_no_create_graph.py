# after: WGAN-GP style question: the gradient penalty computed from torch.autograd.grad without create_graph=True, then backpropagated
# expect: explained no-grad-to-compute
# mentions: create_graph=True | `grads` | line 11
import torch
import torch.nn as nn

critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
samples = torch.randn(6, 2, requires_grad=True)
scores = critic(samples)

grads = torch.autograd.grad(scores.sum(), samples)[0]
penalty = ((grads.norm(dim=1) - 1) ** 2).mean()
penalty.backward()

# after: learners who wrap a layer with torch.nn.utils.parametrizations.weight_norm and then print layer.weight.grad.norm() after backward (the weight is recomputed from original0/original1, so its .grad is None: "'NoneType' object has no attribute 'norm'")
# expect: explained grad-is-none
# mentions: layer.weight | layer.parametrizations.weight.original0.grad
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm

torch.manual_seed(0)
layer = weight_norm(nn.Linear(4, 3))
x = torch.randn(5, 4)
loss = layer(x).pow(2).mean()
loss.backward()
print(layer.weight.grad.norm())

# after: PyTorch docs torch.utils.checkpoint.checkpoint_sequential (segments of an nn.Sequential)
# expect: match
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
input_var = torch.randn(3, 4, requires_grad=True)
out = checkpoint_sequential(model, 2, input_var, use_reentrant=False)
out.sum().backward()
print(input_var.grad)

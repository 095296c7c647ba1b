# after: "Trading compute for memory" posts (torch.utils.checkpoint.checkpoint around a block, use_reentrant=False)
# expect: match
import torch
import torch.nn as nn

block = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
x = torch.randn(2, 4, requires_grad=True)
y = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
loss = y.sum()

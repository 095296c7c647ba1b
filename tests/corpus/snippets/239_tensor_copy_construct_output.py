# after: Stack Overflow "UserWarning: To copy construct from a tensor ... / does not have a grad_fn" (the network output wrapped again in torch.tensor)
# expect: explained no-grad-to-compute
# mentions: `preds` | line 11 | delete line 11
import torch
import torch.nn as nn

net = nn.Linear(3, 1)
data = torch.randn(6, 3)
target = torch.randn(6, 1)
preds = net(data)
preds = torch.tensor(preds)
loss = ((preds - target) ** 2).mean()
loss.backward()

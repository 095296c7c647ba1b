# after: a notebook where an evaluation cell turned gradients off for the whole session with torch.set_grad_enabled(False)
# expect: explained no-grad-to-compute
# mentions: torch.set_grad_enabled(False) | line 7 | `loss`
import torch
import torch.nn as nn

torch.set_grad_enabled(False)
net = nn.Linear(2, 2)
x = torch.randn(3, 2)
loss = net(x).pow(2).mean()
loss.backward()

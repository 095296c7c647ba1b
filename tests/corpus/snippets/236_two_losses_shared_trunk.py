# after: PyTorch forum "multi-task: Trying to backward through the graph a second time" (two heads on one encoder, backward called on each loss)
# expect: explained backward-twice
# mentions: `loss_a` | `loss_b` | loss_a.backward(retain_graph=True) | (loss_a + loss_b).backward()
import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(4, 6), nn.Tanh())
head_a = nn.Linear(6, 1)
head_b = nn.Linear(6, 1)
x = torch.randn(3, 4)

shared = encoder(x)
loss_a = head_a(shared).pow(2).mean()
loss_b = head_b(shared).abs().mean()
loss_a.backward()
loss_b.backward()

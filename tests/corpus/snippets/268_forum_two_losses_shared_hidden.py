# after: PyTorch forum "Trying to backward through the graph a second time" (two heads on one shared hidden layer, each loss backpropagated on its own)
# expect: explained backward-twice
# mentions: retain_graph=True
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Linear(4, 8)
head_a = nn.Linear(8, 1)
head_b = nn.Linear(8, 1)

x = torch.randn(5, 4)
hidden = torch.relu(trunk(x))
loss_a = head_a(hidden).pow(2).mean()
loss_b = head_b(hidden).abs().mean()

loss_a.backward()
loss_b.backward()
print(trunk.weight.grad.sum())

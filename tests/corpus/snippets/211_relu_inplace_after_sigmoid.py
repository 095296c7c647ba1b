# after: PyTorch forum "SigmoidBackward0 ... is at version 1" (nn.ReLU(inplace=True) placed right after a Sigmoid in nn.Sequential)
# expect: explained saved-tensor-modified
# mentions: inplace=True | nn.ReLU() | line 7
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(3, 5), nn.Sigmoid(), nn.ReLU(inplace=True), nn.Linear(5, 1))
batch = torch.randn(4, 3)
loss = net(batch).mean()
loss.backward()

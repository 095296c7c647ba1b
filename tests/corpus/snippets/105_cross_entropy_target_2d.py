# after: Stack Overflow "RuntimeError: multi-target not supported" (CrossEntropyLoss with labels of shape [N, 1] from a column of a table)
# expect: explained class-target-shape
# mentions: `y` | F.cross_entropy(logits, y.squeeze(1)) | [N, 1]
import torch
import torch.nn as nn
import torch.nn.functional as F

X = torch.randn(5, 2)
y = torch.tensor([[0], [1], [1], [0], [1]])

net = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
print(X.shape, y.shape)
logits = net(X)
loss = F.cross_entropy(logits, y)
loss.backward()

# after: Stack Overflow "IndexError: Target 3 is out of bounds" (labels numbered 1..3 with a 3-class output layer)
# expect: explained class-target-range
# mentions: `target` | Target 3 | loss_fn(pred, target - 1) | at least 4
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
loss_fn = nn.CrossEntropyLoss()

data = torch.randn(6, 4)
target = torch.tensor([1, 2, 3, 1, 2, 3])

pred = model(data)
loss = loss_fn(pred, target)
loss.backward()

# after: PyTorch docs nn.Sequential with collections.OrderedDict
# expect: match
from collections import OrderedDict
import torch
import torch.nn as nn

model = nn.Sequential(OrderedDict([
    ('fc1', nn.Linear(3, 5)),
    ('act', nn.ReLU()),
    ('fc2', nn.Linear(5, 1)),
]))
x = torch.randn(7, 3)
loss = model(x).abs().mean()
loss.backward()
for name, p in model.named_parameters():
    print(name, tuple(p.grad.shape))

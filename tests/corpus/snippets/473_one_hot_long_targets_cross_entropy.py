# after: Stack Overflow "Expected floating point type for target with class probabilities, got Long" (torch 1.x: "multi-target not supported") (labels one-hot encoded with F.one_hot, which gives whole numbers, then given to nn.CrossEntropyLoss)
# expect: explained class-target-probabilities
# mentions: `targets` is one-hot encoded on line 12 | targets.argmax(dim=1)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(9)
net = nn.Linear(5, 3)
inputs = torch.randn(6, 5)
labels = torch.tensor([0, 2, 1, 1, 0, 2])
targets = F.one_hot(labels, num_classes=3)
criterion = nn.CrossEntropyLoss()
loss = criterion(net(inputs), targets)
loss.backward()

# after: Stack Overflow "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)" (predicting one example with code written for batches)
# expect: explained dim-out-of-range
# mentions: `logits` | dim=-1 | logits.unsqueeze(0)
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(4, 3)
batch = torch.randn(5, 4)
print(F.softmax(model(batch), dim=1).argmax(dim=1))

one = torch.randn(4)
logits = model(one)
probs = F.softmax(logits, dim=1)

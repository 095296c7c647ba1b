# after: Stack Overflow "a Tensor with 8 elements cannot be converted to Scalar" (a criterion built with reduction='none' for later weighting, its result logged with .item())
# expect: explained many-to-number
# mentions: `losses` holds 8 numbers | losses.mean().item()
import torch
import torch.nn as nn

torch.manual_seed(27)
model = nn.Linear(4, 3)
batch = torch.randn(8, 4)
targets = torch.randint(0, 3, (8,))
per_sample = nn.CrossEntropyLoss(reduction='none')
losses = per_sample(model(batch), targets)
print(f"loss {losses.item():.4f}")

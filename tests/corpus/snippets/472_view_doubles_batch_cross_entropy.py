# after: PyTorch forum "Expected input batch_size (8) to match target batch_size (4)" (the output reshaped with view(-1, 2) before cross_entropy, turning 4 rows of 4 scores into 8 rows)
# expect: explained batch-size-mismatch
# mentions: each row of `out` (8 rows) | `y`
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 4))
x = torch.randn(4, 3)
y = torch.randint(0, 2, (4,))
out = model(x).view(-1, 2)
loss = F.cross_entropy(out, y)
loss.backward()

# after: PyTorch forum "grad can be implicitly created only for scalar outputs" (a loss built with reduction='none' for per-sample weighting, backpropagated directly)
# expect: explained non-scalar-backward
# mentions: `per_sample` | .mean()
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
criterion = nn.MSELoss(reduction="none")
inputs = torch.randn(6, 3)
labels = torch.randn(6, 1)
per_sample = criterion(model(inputs), labels)
per_sample.backward()

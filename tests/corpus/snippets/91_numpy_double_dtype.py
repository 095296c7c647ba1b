# after: Stack Overflow "RuntimeError: expected scalar type Float but found Double" (numpy float64 data straight into nn.Linear)
# expect: explained dtype-mismatch
# mentions: line 12 | X = torch.from_numpy(data).float()
import numpy as np
import torch
import torch.nn as nn

data = np.random.rand(10, 4)
labels = np.random.rand(10, 1)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.from_numpy(data)
y = torch.from_numpy(labels)
print(X.dtype, model[0].weight.dtype)
out = model(X)

# after: Stack Overflow "RuntimeError: expected scalar type Float but found Double" / "mat1 and mat2 must have the same dtype" (NumPy's float64 data wrapped with torch.from_numpy and given to an nn.Linear)
# expect: explained dtype-mismatch
# mentions: `X` is Double (float64) but the weights of `layer` are Float | X = torch.from_numpy(data).float()
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
data = rng.normal(size=(10, 4))
X = torch.from_numpy(data)
torch.manual_seed(6)
layer = nn.Linear(4, 2)
out = layer(X)
print(out)

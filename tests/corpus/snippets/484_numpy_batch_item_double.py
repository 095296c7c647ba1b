# after: PyTorch forum "expected scalar type Float but found Double" (a list of batches made from NumPy float64 arrays with torch.tensor, one of them given to the model)
# expect: explained dtype-mismatch
# mentions: `batches[0]` is Double (float64) | weights of `mlp` | [torch.tensor(rng.normal(size=(4, 3))).float() for _ in range(2)]
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(3)
batches = [torch.tensor(rng.normal(size=(4, 3))) for _ in range(2)]
torch.manual_seed(18)
mlp = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
out = mlp(batches[0])
print(out.sum())

# after: Stack Overflow "TypeError: linear(): argument 'input' (position 1) must be Tensor, not numpy.ndarray" (a scikit-learn style feature matrix passed straight to a PyTorch model)
# expect: explained tensor-expected
# mentions: `linear()` | a NumPy array: `X_test` | torch.from_numpy(X_test).float()
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
X_test = rng.normal(size=(6, 4))
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
with torch.no_grad():
    predictions = model(X_test)
print(predictions)

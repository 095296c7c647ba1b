# after: Stack Overflow "Can't call numpy() on Tensor that requires grad" (model predictions turned into NumPy for a metric)
# expect: explained numpy-requires-grad
# mentions: `y_pred` | y_pred.detach().numpy()
import numpy as np
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
X_test = torch.randn(5, 3)
y_test = np.zeros((5, 1), dtype=np.float32)
y_pred = model(X_test)
mae = np.abs(y_pred.numpy() - y_test).mean()

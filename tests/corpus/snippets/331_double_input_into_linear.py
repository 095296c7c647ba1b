# after: PyTorch forum "mat1 and mat2 must have the same dtype" (a DataFrame's float64 values fed to nn.Linear through torch.from_numpy)
# expect: explained dtype-mismatch
# mentions: `batch_x` is Double | `self.fc1` | torch.from_numpy(table).float()
import numpy as np
import torch
import torch.nn as nn

class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, batch_x):
        return self.fc2(torch.relu(self.fc1(batch_x)))

table = np.linspace(0.0, 1.0, 12).reshape(4, 3)
regressor = Regressor()
prediction = regressor(torch.from_numpy(table))

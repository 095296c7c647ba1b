# after: TensorDataset built with torch.from_numpy of NumPy float64 arrays (np.random.default_rng().normal), batches from a DataLoader fed to nn.Linear: "mat1 and mat2 must have the same dtype, but got Double and Float"
# expect: explained dtype-mismatch
# mentions: xb | model(xb.float())
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
features = rng.normal(size=(20, 3))
labels = rng.normal(size=(20, 1))
dataset = TensorDataset(torch.from_numpy(features), torch.from_numpy(labels))
loader = DataLoader(dataset, batch_size=4, shuffle=False)
model = nn.Linear(3, 1)
loss_fn = nn.MSELoss()
for xb, yb in loader:
    pred = model(xb)
    loss = loss_fn(pred, yb)
    loss.backward()

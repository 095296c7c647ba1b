# after: Stack Overflow "ValueError: Target size (torch.Size([8])) must be the same as input size (torch.Size([8, 1]))" with BCEWithLogitsLoss
# expect: explained target-size
# mentions: `y_pred` | y_batch.unsqueeze(1) | y_pred.squeeze(1)
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
criterion = nn.BCEWithLogitsLoss()

X_batch = torch.randn(8, 5)
y_batch = torch.randint(0, 2, (8,)).float()

y_pred = model(X_batch)
loss = criterion(y_pred, y_batch)
loss.backward()

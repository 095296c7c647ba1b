# after: learners computing the loss inside `with torch.no_grad():` (meant for evaluation) and calling backward on it
# expect: explained no-grad-to-compute
# mentions: `val_loss` | no_grad
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x_val = torch.randn(5, 3)
y_val = torch.randn(5, 1)
with torch.no_grad():
    pred_val = model(x_val)
    val_loss = nn.functional.mse_loss(pred_val, y_val)
val_loss.backward()

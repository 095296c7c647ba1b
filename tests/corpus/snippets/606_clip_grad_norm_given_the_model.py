# after: gradient-clipping questions where torch.nn.utils.clip_grad_norm_ is handed the model itself instead of model.parameters()
# expect: explained clip-given-module
# mentions: model.parameters()
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
loss = nn.functional.mse_loss(model(x), y)
loss.backward()
torch.nn.utils.clip_grad_norm_(model, max_norm=1.0)
optimizer.step()

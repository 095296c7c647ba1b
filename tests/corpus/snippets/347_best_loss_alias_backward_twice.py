# after: PyTorch forum "Trying to backward through the graph a second time" (the loss kept under a second name, best_loss = loss, and backpropagated again)
# expect: explained backward-twice
# mentions: `loss` and `best_loss` are one tensor under two names | loss.backward(retain_graph=True)
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.randn(16, 3)
y = torch.randn(16, 1)
loss = nn.functional.mse_loss(model(x), y)
loss.backward()
best_loss = loss
print(best_loss.item())
best_loss.backward()

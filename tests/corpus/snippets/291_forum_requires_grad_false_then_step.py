# after: PyTorch forum "element 0 of tensors does not require grad" (the model frozen with requires_grad = False for every parameter before training)
# expect: explained no-grad-to-compute
# mentions: `loss`
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))
for param in model.parameters():
    param.requires_grad = False
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(5, 4), torch.randn(5, 1)
loss = nn.functional.mse_loss(model(x), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()

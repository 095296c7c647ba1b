# after: PyTorch forum "element 0 of tensors does not require grad and does not have a grad_fn" (predictions detached to log them, then the loss built from the detached copy and backpropagated)
# expect: explained no-grad-to-compute
# mentions: `preds` is made with `.detach()` on line 13 | preds = net(features)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
features = torch.randn(16, 5)
targets = torch.randn(16, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
preds = net(features).detach()
print("mean prediction", preds.mean().item())
loss = F.mse_loss(preds, targets)
opt.zero_grad()
loss.backward()
opt.step()

# after: Stack Overflow "element 0 of tensors does not require grad and does not have a grad_fn" (the training step run inside `with torch.no_grad():` copied from the evaluation code)
# expect: explained no-grad-to-compute
# mentions: `loss` | with torch.no_grad(): | line 15 | line 17
import torch
import torch.nn as nn
import torch.optim as optim

net = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
optimizer = optim.SGD(net.parameters(), lr=0.01)
loss_fn = nn.MSELoss()

X = torch.randn(10, 2)
Y = torch.randn(10, 1)

with torch.no_grad():
    pred = net(X)
    loss = loss_fn(pred, Y)

optimizer.zero_grad()
loss.backward()
optimizer.step()

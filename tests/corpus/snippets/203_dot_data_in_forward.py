# after: old tutorial habit: `.data` taken from the network's output to print it, then used for the loss
# expect: explained no-grad-to-compute
# mentions: `output` | .data | line 12
import torch
import torch.nn as nn

net = nn.Linear(2, 1)
loss_fn = nn.MSELoss()
x_batch = torch.randn(8, 2)
y_batch = torch.randn(8, 1)

output = net(x_batch).data
print(output[:2])
loss_val = loss_fn(output, y_batch)
loss_val.backward()

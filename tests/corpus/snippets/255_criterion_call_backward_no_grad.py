# after: PyTorch forum "element 0 of tensors does not require grad" (the loss built and backpropagated in one line, from outputs detached for logging)
# expect: explained no-grad-to-compute
# mentions: `outputs` | line 12 | outputs = net(batch)`
import torch
import torch.nn as nn

net = nn.Linear(5, 2)
criterion = nn.CrossEntropyLoss()
batch = torch.randn(4, 5)
labels = torch.tensor([1, 0, 1, 1])

outputs = net(batch).detach()
criterion(outputs, labels).backward()

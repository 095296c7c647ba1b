# after: PyTorch forum "leaf Variable ... in-place operation" (a layer's weight updated by hand without torch.no_grad())
# expect: explained leaf-inplace
# mentions: `layer.weight` | with torch.no_grad(): layer.weight -= lr * layer.weight.grad
import torch
import torch.nn as nn

layer = nn.Linear(3, 1)
lr = 0.01
inputs = torch.randn(8, 3)
targets = torch.randn(8, 1)

loss = ((layer(inputs) - targets) ** 2).mean()
loss.backward()
layer.weight -= lr * layer.weight.grad

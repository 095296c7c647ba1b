# after: PyTorch forums "How to freeze part of a weight matrix" (a hook multiplies the gradient by a mask)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
mask = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
layer.weight.register_hook(lambda grad: grad * mask)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
before = layer.weight.detach().clone()
x = torch.randn(5, 3)
loss = layer(x).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(layer.weight.grad)
print((layer.weight.detach() - before) == 0)

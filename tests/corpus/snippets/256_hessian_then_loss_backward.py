# after: PyTorch forum "create_graph=True, then backward twice" (a gradient-norm regulariser backpropagated before the loss itself)
# expect: explained backward-twice
# mentions: `loss` | retain_graph=True | line 11
import torch

w = torch.randn(3, requires_grad=True)
data = torch.randn(5, 3)
loss = torch.tanh(data @ w).pow(2).mean()

g = torch.autograd.grad(loss, w, create_graph=True)[0]
g.pow(2).sum().backward()
loss.backward()

# after: PyTorch forum "backward then autograd.grad: Trying to backward through the graph a second time" (logging the input gradient after the training backward)
# expect: explained backward-twice
# mentions: `loss` | loss.backward(retain_graph=True) | line 10
import torch

w = torch.randn(3, requires_grad=True)
data = torch.randn(3, requires_grad=True)
loss = torch.sigmoid(w @ data)

loss.backward()
input_grad = torch.autograd.grad(loss, data)

# after: PyTorch forum "One of the differentiated Tensors appears to not have been used in the graph" (asking for the gradient of a weight the loss never used)
# expect: explained unused-input
# mentions: `W2` | allow_unused=True | `loss_val`
import torch

W1 = torch.randn(3, 3, requires_grad=True)
W2 = torch.randn(3, 3, requires_grad=True)
x = torch.randn(3)
loss_val = (W1 @ x).pow(2).sum()
dW1, dW2 = torch.autograd.grad(loss_val, [W1, W2])

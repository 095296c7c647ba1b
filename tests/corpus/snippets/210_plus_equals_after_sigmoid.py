# after: PyTorch forum "modified by an inplace operation" (a bias added with += to an activation that sigmoid saved for its backward)
# expect: explained saved-tensor-modified
# mentions: `hidden` | line 10 | hidden = hidden + bias
import torch

W1 = torch.randn(3, 4, requires_grad=True)
bias = torch.ones(4)
x = torch.randn(2, 3)

hidden = torch.sigmoid(x @ W1)
hidden += bias
loss = hidden.pow(2).sum()
loss.backward()

# after: PyTorch forum "how to get the gradient of an intermediate layer" (reading .grad of a hidden activation)
# expect: match warns non-leaf-grad
# mentions: `hidden` | hidden.retain_grad()
import torch

W1 = torch.randn(3, 4, requires_grad=True)
W2 = torch.randn(4, 1, requires_grad=True)
x = torch.randn(2, 3)
hidden = torch.relu(x @ W1)
out = (hidden @ W2).sum()
out.backward()
print(hidden.grad)
print(W1.grad.shape)

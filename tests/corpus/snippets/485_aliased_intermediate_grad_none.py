# after: PyTorch forum "x.grad is None for my intermediate tensor" (the hidden layer kept under two names, `h = z = x @ W1`, z.grad read after backward)
# expect: match warns non-leaf-grad
# mentions: `z` | z.retain_grad()
import torch

torch.manual_seed(19)
x = torch.randn(4, 3)
W1 = torch.randn(3, 5, requires_grad=True)
W2 = torch.randn(5, 1, requires_grad=True)
h = z = x @ W1
out = (torch.relu(h) @ W2).sum()
out.backward()
print(z.grad)
print(W1.grad.shape)

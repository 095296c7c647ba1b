# after: Stack Overflow "why is my .grad None?" (the weights made with requires_grad=True and converted with .double() on the same line)
# expect: match warns non-leaf-grad
# mentions: `W` | line 6 | requires_grad_()
import torch

W = torch.randn(3, 2, requires_grad=True).double()
X = torch.randn(4, 3, dtype=torch.float64)
loss = (X @ W).pow(2).mean()
loss.backward()
print(W.grad)

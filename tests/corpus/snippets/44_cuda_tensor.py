# after: old tutorials moving everything with .cuda()
# expect: refused
import torch

x = torch.randn(3, requires_grad=True)
y = (x.cuda() ** 2).sum()
y.backward()

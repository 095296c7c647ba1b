# after: PyTorch 0.3-era tutorials printing loss.data[0]
# expect: explained zero-dim-index
import torch

x = torch.randn(4, 2)
w = torch.randn(2, 1, requires_grad=True)
loss = (x @ w).pow(2).mean()
loss.backward()
print(loss.data[0])

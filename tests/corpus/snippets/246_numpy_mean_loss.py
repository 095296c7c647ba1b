# after: Stack Overflow "'numpy.float64' object has no attribute 'backward'" (the loss written with NumPy)
# expect: explained backward-on-number
# mentions: `loss` | line 11 | without `.numpy()`
import numpy as np
import torch

w = torch.randn(3, requires_grad=True)
xs = torch.randn(10, 3)
ys = torch.randn(10)
preds = xs @ w
loss = np.mean((preds.detach().numpy() - ys.numpy()) ** 2)
loss.backward()

# after: Stack Overflow "Input type (double) and bias type (float) should be the same" (a NumPy float64 batch into a Conv2d)
# expect: explained dtype-mismatch
# mentions: line 10 | batch = torch.tensor(arr).float()
import numpy as np
import torch
import torch.nn as nn

arr = np.random.randn(2, 1, 8, 8)
conv = nn.Conv2d(1, 4, kernel_size=3)
batch = torch.tensor(arr)
out = conv(batch)

# after: Stack Overflow "expected m1 and m2 to have the same dtype" (weights made from a numpy float64 array, data from torch.randn)
# expect: explained dtype-mismatch
# mentions: `features` is Float (float32) | `W1` is Double (float64) | line 8
import numpy as np
import torch

rng = np.random.default_rng(0)
W1 = torch.tensor(rng.normal(size=(4, 3)), requires_grad=True)
features = torch.randn(10, 4)
hidden = features @ W1

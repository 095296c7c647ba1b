# after: Stack Overflow "RuntimeError: inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements" (torch.dot of a weight vector and a feature vector with the bias feature appended)
# expect: explained dot-sizes
# mentions: `w` has 3 elements and `features` 4 | print(w.shape, features.shape)
import torch

w = torch.randn(3, requires_grad=True)
raw = torch.tensor([0.5, -1.2, 2.0])
features = torch.cat([raw, torch.ones(1)])
score = torch.dot(w, features)
score.backward()

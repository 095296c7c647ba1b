# after: PyTorch forum "mat1 and mat2 shapes cannot be multiplied (32x784 and 512x10)" (the classifier's in_features not matching the flattened image)
# expect: explained matmul-shape
# mentions: `classifier(imgs)` | `nn.Linear(512, 10)` on line 7 | nn.Linear(784, 10)
import torch
import torch.nn as nn

classifier = nn.Sequential(nn.Flatten(), nn.Linear(512, 10))
imgs = torch.randn(32, 1, 28, 28)
logits = classifier(imgs)

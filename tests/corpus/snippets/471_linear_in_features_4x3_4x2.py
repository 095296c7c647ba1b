# after: Stack Overflow "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x2)" (an nn.Linear(4, 2) given a batch of 4 examples with 3 features each)
# expect: explained matmul-shape
# mentions: `nn.Linear(4, 2)` (`head`) on line 8 | 3 numbers in each row | nn.Linear(3, 2)
import torch
import torch.nn as nn

torch.manual_seed(7)
head = nn.Linear(4, 2)
feats = torch.randn(4, 3)
logits = head(feats)
print(logits)

# after: beginner Q&A "mat1 and mat2 shapes cannot be multiplied"
# expect: explained matmul-shape
import torch
import torch.nn as nn

layer = nn.Linear(4, 2)
x = torch.randn(3, 5)
y = layer(x)

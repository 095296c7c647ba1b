# after: PyTorch forum "TanhBackward0 output 0 is at version 1" (a custom block whose forward applies F.relu(..., inplace=True) to the output of torch.tanh)
# expect: explained saved-tensor-modified
# mentions: `h` | Tanh | out = F.relu(h)
import torch
import torch.nn as nn
import torch.nn.functional as F

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)

    def forward(self, x):
        h = torch.tanh(self.lin(x))
        out = F.relu(h, inplace=True)
        return out

block = Block()
inputs = torch.randn(3, 5)
out = block(inputs)
out.sum().backward()

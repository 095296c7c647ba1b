# after: PyTorch forum "TanhBackward0 ... modified by an inplace operation" (a residual block written with += on the activation, inside forward)
# expect: explained saved-tensor-modified
# mentions: `h` | line 15 | h = h + x
import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        h = torch.tanh(self.fc(x))
        h += x
        return h


block = ResidualBlock(4)
out = block(torch.randn(2, 4)).sum()
out.backward()

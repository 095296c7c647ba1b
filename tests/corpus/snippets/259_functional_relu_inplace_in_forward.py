# after: PyTorch forum "SigmoidBackward0 output 0 is at version 1" (F.relu(..., inplace=True) applied to a sigmoid's output inside forward)
# expect: explained saved-tensor-modified
# mentions: inplace=True | line 16 | gate = F.relu(gate)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        gate = torch.sigmoid(self.lin(x))
        gate = F.relu(gate, inplace=True)
        return gate * x


model = Gate()
model(torch.randn(5, 3)).mean().backward()

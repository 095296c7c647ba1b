# after: PyTorch forum "modified by an inplace operation" in a hand-written attention layer (the softmax weights kept on self and masked in place afterwards)
# expect: explained saved-tensor-modified
# mentions: `self.attn` (line 16 | `self.attn = self.attn.clone()` just before line 17
import torch
import torch.nn as nn

class Attention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(-2, -1) / x.size(-1) ** 0.5
        self.attn = torch.softmax(scores, dim=-1)
        self.attn[:, 0, 1:] = 0.0
        return self.attn @ self.v(x)

torch.manual_seed(0)
layer = Attention(4)
out = layer(torch.randn(2, 3, 4))
out.sum().backward()

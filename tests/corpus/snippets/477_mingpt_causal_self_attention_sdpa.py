# after: minGPT / nanoGPT CausalSelfAttention (one c_attn Linear split into q, k, v, heads made with view and transpose(1, 2), the manual path with a registered tril "bias" mask and masked_fill, compared with F.scaled_dot_product_attention(is_causal=True), c_proj, the gradient of both)
# expect: match
import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, flash):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        self.n_embd = n_embd
        self.flash = flash
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


torch.manual_seed(13)
manual = CausalSelfAttention(16, 4, 8, flash=False)
fused = CausalSelfAttention(16, 4, 8, flash=True)
fused.load_state_dict(manual.state_dict())
x = torch.randn(2, 6, 16)
y1 = manual(x)
y2 = fused(x)
print(y1.shape, torch.allclose(y1, y2, atol=1e-6))
y1.pow(2).sum().backward()
y2.pow(2).sum().backward()
print(torch.allclose(manual.c_attn.weight.grad, fused.c_attn.weight.grad, atol=1e-5))
print(manual.c_proj.bias.grad)

# after: F.scaled_dot_product_attention examples (a boolean attn_mask where True means "attend", is_causal=True, an explicit scale, compared with the manual softmax(q @ k^T / sqrt(d)) @ v, heads shaped (B, H, T, d), under torch.inference_mode and with gradients)
# expect: match
import math

import torch
import torch.nn.functional as F

torch.manual_seed(31)
q = torch.randn(2, 3, 4, 8)
k = torch.randn(2, 3, 5, 8)
v = torch.randn(2, 3, 5, 8)
keep = torch.ones(4, 5, dtype=torch.bool).tril(diagonal=1)
with torch.inference_mode():
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    manual = scores.masked_fill(~keep, float("-inf")).softmax(-1) @ v
    causal = F.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.5)
print(out[0, 0])
print((out - manual).abs().max())
print(causal[1, 2])
qg = q.clone().requires_grad_(True)
F.scaled_dot_product_attention(qg, k, v, attn_mask=keep).sum().backward()
print(qg.grad[0, 1])

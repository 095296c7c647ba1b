# after: causal masks for nn.MultiheadAttention built as torch.triu(torch.ones(seq_len, seq_len), diagonal=1).long() (or .int()) instead of a bool or float mask: "only bool and floating types of attn_mask are supported"
# expect: explained mask-dtype
# mentions: causal_mask | causal_mask.bool()
import torch
import torch.nn as nn

torch.manual_seed(0)
seq_len, d_model = 5, 8
attn = nn.MultiheadAttention(d_model, num_heads=2, batch_first=True)
x = torch.randn(3, seq_len, d_model)
causal_mask = torch.triu(torch.ones(seq_len, seq_len), diagonal=1).long()
out, weights = attn(x, x, x, attn_mask=causal_mask)
out.mean().backward()

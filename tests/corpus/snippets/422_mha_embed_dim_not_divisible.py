# after: PyTorch forum "AssertionError: embed_dim must be divisible by num_heads" (nn.MultiheadAttention(embed_dim=10, num_heads=4))
# expect: explained heads-divide
# mentions: `d_model`, 10 | `n_heads`, 4 | (1, 2, 5, 10)
import torch
import torch.nn as nn

d_model = 10
n_heads = 4
attention = nn.MultiheadAttention(embed_dim=d_model, num_heads=n_heads, batch_first=True)
tokens = torch.randn(2, 5, d_model)
out, _ = attention(tokens, tokens, tokens)

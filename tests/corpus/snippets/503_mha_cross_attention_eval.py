# after: cross-attention examples (decoder states as the query, encoder outputs as key and value: attn(query, memory, memory) with a memory padding mask, batch_first=True, kdim/vdim for a memory of another width, eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(10)
cross = nn.MultiheadAttention(16, 4, batch_first=True).eval()
cross_other = nn.MultiheadAttention(16, 4, kdim=10, vdim=6, batch_first=True).eval()
query = torch.randn(2, 3, 16)
memory = torch.randn(2, 7, 16)
memory_keys = torch.randn(2, 7, 10)
memory_values = torch.randn(2, 7, 6)
memory_padding = torch.tensor([[False] * 7, [False] * 4 + [True] * 3])
with torch.no_grad():
    context, weights = cross(query, memory, memory, key_padding_mask=memory_padding)
    context2, weights2 = cross_other(query, memory_keys, memory_values, key_padding_mask=memory_padding)
print(context.shape, weights.shape)
print(weights[1])
print(context[1])
print(context2[0], weights2[1, 0])

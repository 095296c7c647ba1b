# after: additive float masks for nn.MultiheadAttention (nn.Transformer.generate_square_subsequent_mask as attn_mask, a float key_padding_mask of 0 and -inf, the default sequence-first layout (L, N, E), eval under torch.no_grad and again with gradients on)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(9)
mha = nn.MultiheadAttention(8, 2)
mha.eval()
x = torch.randn(5, 2, 8)
attn_mask = nn.Transformer.generate_square_subsequent_mask(5)
key_padding_mask = torch.zeros(2, 5)
key_padding_mask[1, 3:] = float("-inf")
with torch.no_grad():
    y, w = mha(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask)
print(attn_mask)
print(y[:, 1])
print(w[1])
y2, _ = mha(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask)
y2.sum().backward()
print(torch.equal(y, y2.detach()), mha.in_proj_weight.grad.abs().sum())

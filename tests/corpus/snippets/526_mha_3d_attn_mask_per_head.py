# after: per-example masks for nn.MultiheadAttention (a boolean attn_mask of shape (batch * num_heads, L, S) built with repeat_interleave over heads, batch_first=True, eval under torch.no_grad, need_weights with average_attn_weights=False)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(34)
batch, heads, length = 2, 2, 4
mha = nn.MultiheadAttention(8, heads, batch_first=True).eval()
x = torch.randn(batch, length, 8)
lengths = torch.tensor([4, 2])
blocked = torch.arange(length)[None, None, :] >= lengths[:, None, None]
blocked = blocked.expand(batch, length, length)
attn_mask = blocked.repeat_interleave(heads, dim=0)
with torch.no_grad():
    y, w = mha(x, x, x, attn_mask=attn_mask, average_attn_weights=False)
    y_fast, _ = mha(x, x, x, attn_mask=attn_mask, need_weights=False)
print(attn_mask.shape)
print(w[1])
print(y[1])
print(torch.equal(y, y_fast))

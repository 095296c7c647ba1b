# after: masking questions about nn.MultiheadAttention (a boolean causal attn_mask where True means "may not attend", a boolean key_padding_mask from the lengths, batch_first=True, eval under torch.no_grad, the weights of masked keys exactly zero)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(8)
mha = nn.MultiheadAttention(12, 2, batch_first=True).eval()
x = torch.randn(3, 4, 12)
lengths = torch.tensor([4, 2, 3])
key_padding_mask = torch.arange(4)[None, :] >= lengths[:, None]
causal = torch.ones(4, 4, dtype=torch.bool).triu(1)
with torch.no_grad():
    y, w = mha(x, x, x, key_padding_mask=key_padding_mask)
    yc, wc = mha(x, x, x, attn_mask=causal, need_weights=False)
    yb, wb = mha(x, x, x, attn_mask=causal, key_padding_mask=key_padding_mask)
print(key_padding_mask)
print(w[1])
print(y[1])
print(yc[0], wc)
print(wb[2])

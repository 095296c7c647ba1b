# after: shape experiments with attention layers (an odd number of heads, nhead=3, and an unbatched (seq, feature) input to nn.MultiheadAttention and nn.TransformerEncoderLayer, eval under torch.no_grad; torch takes its plain path for both)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(21)
mha = nn.MultiheadAttention(9, 3, batch_first=True).eval()
layer = nn.TransformerEncoderLayer(9, 3, 18, batch_first=True).eval()
even = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval()
x = torch.randn(2, 4, 9)
single = torch.randn(4, 9)
single8 = torch.randn(5, 8)
with torch.no_grad():
    a, w = mha(x, x, x)
    b, wb = mha(single, single, single)
    c = layer(x)
    d = layer(single)
    e = even(single8)
print(a[0], w.shape)
print(b, wb)
print(c[1])
print(d)
print(e)

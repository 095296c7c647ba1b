# after: Dive into Deep Learning 11.6-11.7 "Self-Attention and Positional Encoding" and "The Transformer Architecture" (PositionalEncoding keeping self.P = torch.zeros((1, max_len, num_hiddens)) filled with torch.sin/torch.cos of X = torch.arange(max_len).reshape(-1, 1) / torch.pow(10000, torch.arange(0, num_hiddens, 2) / num_hiddens), PositionWiseFFN with nn.LazyLinear dense1/relu/dense2, AddNorm with dropout and LayerNorm(norm_shape), ln(X) vs bn(X) in train mode, a TransformerEncoderBlock on nn.MultiheadAttention, shapes checked as in the book, then one training step)
# expect: match
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens
        )
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, : X.shape[1], :].to(X.device)
        return self.dropout(X)


encoding_dim, num_steps = 32, 60
pos_encoding = PositionalEncoding(encoding_dim, 0)
X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))
P = pos_encoding.P[:, : X.shape[1], :]
print(P[0, :, 6:10][:4])
for i in range(8):
    print(f"{i:>03b}")


class PositionWiseFFN(nn.Module):
    def __init__(self, ffn_num_hiddens, ffn_num_outputs):
        super().__init__()
        self.dense1 = nn.LazyLinear(ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.LazyLinear(ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


torch.manual_seed(0)
ffn = PositionWiseFFN(4, 8)
ffn.eval()
print(ffn(torch.ones((2, 3, 4)))[0])

ln = nn.LayerNorm(2)
bn = nn.BatchNorm1d(2)
X = torch.tensor([[1, 2], [2, 3]], dtype=torch.float32)
print("layer norm:", ln(X), "\nbatch norm:", bn(X))


class AddNorm(nn.Module):
    def __init__(self, norm_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(norm_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


add_norm = AddNorm(4, 0.5)
shape = (2, 3, 4)
print(add_norm(torch.ones(shape), torch.ones(shape)).shape)


class TransformerEncoderBlock(nn.Module):
    def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout, use_bias=False):
        super().__init__()
        self.attention = nn.MultiheadAttention(num_hiddens, num_heads, dropout=dropout, bias=use_bias, batch_first=True)
        self.addnorm1 = AddNorm(num_hiddens, dropout)
        self.ffn = nn.Sequential(nn.Linear(num_hiddens, ffn_num_hiddens), nn.ReLU(), nn.Linear(ffn_num_hiddens, num_hiddens))
        self.addnorm2 = AddNorm(num_hiddens, dropout)

    def forward(self, X, key_padding_mask=None):
        Y = self.addnorm1(X, self.attention(X, X, X, key_padding_mask=key_padding_mask, need_weights=False)[0])
        return self.addnorm2(Y, self.ffn(Y))


torch.manual_seed(1)
X = torch.ones((2, 100, 24))
valid_lens = torch.tensor([3, 2])
key_padding_mask = torch.arange(100)[None, :] >= valid_lens[:, None]
encoder_blk = TransformerEncoderBlock(24, 48, 8, 0.5)
encoder_blk.eval()
print(encoder_blk(X, key_padding_mask).shape)

encoder_blk.train()
tokens = torch.randn(2, 5, 24)
embedded = PositionalEncoding(24, 0.1)(tokens * math.sqrt(24))
out = encoder_blk(embedded)
loss = out.pow(2).mean()
loss.backward()
print(loss.item(), encoder_blk.attention.in_proj_weight.grad.norm(), encoder_blk.addnorm2.ln.weight.grad)

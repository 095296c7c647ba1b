# after: learners adapting Raschka's CausalAttention who drop the slice [:num_tokens, :num_tokens] from attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf), so a batch shorter than context_length fails: "The size of tensor a (4) must match the size of tensor b (6) at non-singleton dimension 2"
# expect: explained shape-mismatch
# mentions: self.mask.bool() | attn_scores | [:n, :n]
import torch
import torch.nn as nn


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool(), -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


torch.manual_seed(123)
ca = CausalAttention(d_in=3, d_out=2, context_length=6, dropout=0.0)
batch = torch.rand(2, 4, 3)
context_vecs = ca(batch)
print(context_vecs.shape)

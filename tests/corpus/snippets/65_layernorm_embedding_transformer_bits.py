# after: "Annotated Transformer" style pieces: Embedding, LayerNorm, softmax attention
# expect: match
import math
import torch
import torch.nn as nn

torch.manual_seed(0)


def attention(query, key, value):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, value), p_attn


emb = nn.Embedding(10, 8)
norm = nn.LayerNorm(8)
tokens = torch.tensor([[1, 2, 3, 4]])
x = norm(emb(tokens))
out, attn = attention(x, x, x)
loss = out.pow(2).mean()
loss.backward()
print(attn.shape, round(loss.item(), 6))
g = emb.weight.grad

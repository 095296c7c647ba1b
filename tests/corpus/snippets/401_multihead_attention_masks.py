# after: PyTorch docs nn.MultiheadAttention and forum threads on attn_mask vs key_padding_mask (batch_first=True, a boolean causal mask from torch.triu, a key_padding_mask for padded tokens, need_weights with average_attn_weights=False, then the same with a float -inf mask)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(17)
embed_dim, num_heads = 8, 2
mha = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
x = torch.randn(2, 4, embed_dim, requires_grad=True)
L = x.size(1)
causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
key_padding_mask = torch.tensor([[False, False, False, True], [False, False, False, False]])

out, weights = mha(x, x, x, attn_mask=causal, key_padding_mask=key_padding_mask,
                   need_weights=True, average_attn_weights=False)
print(out.shape, weights.shape)
print(weights[0, 0])
print(weights[0, 1, 3])
loss = out[:, :3].pow(2).mean()
loss.backward()
print(x.grad[0, 3], x.grad[1].abs().sum())
print(mha.in_proj_weight.grad.abs().sum(), mha.out_proj.bias.grad)

float_mask = torch.zeros(L, L).masked_fill(causal, float('-inf'))
mha.zero_grad()
x.grad = None
out2, avg = mha(x, x, x, attn_mask=float_mask, key_padding_mask=key_padding_mask)
print(torch.allclose(out, out2, atol=1e-6), avg.shape, avg[1].sum(dim=-1))
out2[:, :3].pow(2).mean().backward()
print(x.grad.abs().sum())

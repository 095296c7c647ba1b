# after: learners passing a (batch, keys) padding mask straight to F.scaled_dot_product_attention(q, k, v, attn_mask=padding_mask) with (batch, heads, tokens, head_dim) inputs, so it lines up against (queries, keys): "The size of tensor a (5) must match the size of tensor b (2) at non-singleton dimension 2"
# expect: explained shape-mismatch
# mentions: padding_mask | padding_mask[:, None, None, :]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, H, L, E = 2, 2, 5, 4
q = torch.randn(B, H, L, E, requires_grad=True)
k = torch.randn(B, H, L, E)
v = torch.randn(B, H, L, E)
lengths = torch.tensor([5, 3])
padding_mask = torch.arange(L)[None, :] < lengths[:, None]
out = F.scaled_dot_product_attention(q, k, v, attn_mask=padding_mask)
out.sum().backward()

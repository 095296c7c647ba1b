# after: nn.MultiheadAttention docs for cross-attention with different key and value sizes (kdim, vdim, so the separate q_proj_weight, k_proj_weight, v_proj_weight are used instead of in_proj_weight), add_bias_kv=True and add_zero_attn=True, batch_first=True, trained one step with the gradients of each projection, and attn_output_weights of shape (N, L, S + 2)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(11)
embed_dim, num_heads = 8, 2
mha = nn.MultiheadAttention(embed_dim, num_heads, kdim=5, vdim=6, add_bias_kv=True, add_zero_attn=True, batch_first=True)
print(mha.in_proj_weight)
print(mha.q_proj_weight.shape, mha.k_proj_weight.shape, mha.v_proj_weight.shape, mha.bias_k.shape)

query = torch.randn(3, 4, embed_dim)
key = torch.randn(3, 7, 5)
value = torch.randn(3, 7, 6)
key_padding_mask = torch.zeros(3, 7, dtype=torch.bool)
key_padding_mask[1, 5:] = True

attn_output, attn_output_weights = mha(query, key, value, key_padding_mask=key_padding_mask)
print(attn_output.shape, attn_output_weights.shape)
print(attn_output_weights.sum(dim=-1))
print(attn_output_weights[1, :, 5:7])

optimizer = torch.optim.SGD(mha.parameters(), lr=0.1)
target = torch.randn(3, 4, embed_dim)
loss = nn.functional.mse_loss(attn_output, target)
optimizer.zero_grad()
loss.backward()
for name, p in mha.named_parameters():
    print(name, tuple(p.shape), p.grad.norm().item())
optimizer.step()
with torch.no_grad():
    new_output, _ = mha(query, key, value, key_padding_mask=key_padding_mask, need_weights=False)
print(nn.functional.mse_loss(new_output, target).item() < loss.item())

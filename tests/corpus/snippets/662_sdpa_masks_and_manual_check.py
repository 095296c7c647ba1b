# after: PyTorch docs torch.nn.functional.scaled_dot_product_attention (the "efficient implementation equivalent" written out: L, S = query.size(-2), key.size(-2), scale_factor = 1 / math.sqrt(query.size(-1)), attn_bias built from is_causal with torch.ones(L, S, dtype=torch.bool).tril(diagonal=0) and from a boolean attn_mask with masked_fill_(attn_mask.logical_not(), float("-inf")) or added when float, attn_weight = query @ key.transpose(-2, -1) * scale_factor), compared with F.scaled_dot_product_attention for a boolean mask, a float mask, is_causal=True and scale=, with the gradients of query, key and value
# expect: match
import math

import torch
import torch.nn.functional as F


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    attn_bias = torch.zeros(L, S, dtype=query.dtype)
    if is_causal:
        assert attn_mask is None
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
        attn_bias.to(query.dtype)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight += attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    attn_weight = torch.dropout(attn_weight, dropout_p, train=True)
    return attn_weight @ value


torch.manual_seed(0)
N, H, L, S, E = 2, 2, 4, 5, 8
query = torch.randn(N, H, L, E, requires_grad=True)
key = torch.randn(N, H, S, E, requires_grad=True)
value = torch.randn(N, H, S, E, requires_grad=True)

bool_mask = torch.rand(L, S) > 0.3
bool_mask[:, 0] = True
out = F.scaled_dot_product_attention(query, key, value, attn_mask=bool_mask)
ref = scaled_dot_product_attention(query, key, value, attn_mask=bool_mask)
print((out - ref).abs().max())
out.sum().backward()
g_query, g_key = query.grad.clone(), key.grad.clone()
query.grad = key.grad = value.grad = None
ref.sum().backward()
print(torch.allclose(g_query, query.grad, atol=1e-5), torch.allclose(g_key, key.grad, atol=1e-5))

float_mask = torch.randn(N, 1, L, S)
out_f = F.scaled_dot_product_attention(query, key, value, attn_mask=float_mask, scale=0.5)
ref_f = scaled_dot_product_attention(query, key, value, attn_mask=float_mask, scale=0.5)
print(torch.allclose(out_f, ref_f, atol=1e-6))

q_self = torch.randn(N, H, L, E, requires_grad=True)
causal = F.scaled_dot_product_attention(q_self, q_self, q_self, is_causal=True)
causal_ref = scaled_dot_product_attention(q_self, q_self, q_self, is_causal=True)
print(torch.allclose(causal, causal_ref, atol=1e-6))
print(causal[0, 0, 0], q_self[0, 0, 0])
loss = causal.pow(2).mean()
loss.backward()
print(q_self.grad.abs().sum())

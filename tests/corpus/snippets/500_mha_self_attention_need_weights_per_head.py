# after: nn.MultiheadAttention docs and attention-visualisation posts (self-attention attn(x, x, x) with batch_first=True in eval under torch.no_grad, need_weights=True averaged and average_attn_weights=False per head, each row of weights summing to one)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(7)
attn = nn.MultiheadAttention(embed_dim=16, num_heads=4, batch_first=True)
attn.eval()
x = torch.randn(2, 5, 16)
with torch.no_grad():
    out, avg_weights = attn(x, x, x)
    out_heads, head_weights = attn(x, x, x, average_attn_weights=False)
    out_none, no_weights = attn(x, x, x, need_weights=False)
print(out.shape, avg_weights.shape, head_weights.shape, no_weights)
print(avg_weights[0])
print(head_weights[1, 3])
print(head_weights.sum(-1))
print(torch.equal(out, out_heads), (out - out_none).abs().max())
print(out_none[0, 0])

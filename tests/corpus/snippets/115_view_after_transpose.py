# after: Stack Overflow "view size is not compatible with input tensor's size and stride ... Use .reshape(...) instead" (attention heads: transpose then view)
# expect: explained view-not-contiguous
# mentions: `out` | out.reshape(batch, seq, heads * dim_head)
import torch

batch, seq, heads, dim_head = 2, 5, 4, 8
q = torch.randn(batch, heads, seq, dim_head, requires_grad=True)
k = torch.randn(batch, heads, seq, dim_head)
v = torch.randn(batch, heads, seq, dim_head)

attn = torch.softmax(q @ k.transpose(-2, -1) / dim_head ** 0.5, dim=-1)
out = (attn @ v).transpose(1, 2)
merged = out.view(batch, seq, heads * dim_head)

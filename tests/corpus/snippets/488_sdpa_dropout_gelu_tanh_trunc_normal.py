# after: nanoGPT / timm building blocks (F.scaled_dot_product_attention with an attn_mask and dropout_p under a seed in training, nn.GELU(approximate='tanh'), nn.init.trunc_normal_ with std=0.02, LayerNorm(bias=False), the gradient of each)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
q = torch.randn(2, 2, 5, 4, requires_grad=True)
k = torch.randn(2, 2, 5, 4, requires_grad=True)
v = torch.randn(2, 2, 5, 4, requires_grad=True)
mask = torch.ones(5, 5, dtype=torch.bool).tril()
y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.2)
y2 = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3)
(y.sum() + y2.pow(2).sum()).backward()
print(y[0, 0], q.grad.abs().sum(), k.grad[1, 1], v.grad.norm())

fc = nn.Linear(4, 8)
nn.init.trunc_normal_(fc.weight, std=0.02)
gelu = nn.GELU(approximate='tanh')
ln = nn.LayerNorm(8, bias=False)
x = torch.randn(3, 4, requires_grad=True)
out = ln(gelu(fc(x)))
out.sum().backward()
print(fc.weight.abs().max() <= 0.04, fc.weight.grad, x.grad, ln.weight.grad)

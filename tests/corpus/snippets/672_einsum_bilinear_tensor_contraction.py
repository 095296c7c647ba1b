# after: einsum-heavy model code (a bilinear layer y = torch.einsum('bi,oij,bj->bo', x1, W, x2) + b compared with nn.Bilinear sharing its weight, a CP/Tucker-style tensor contraction torch.einsum('ir,jr,kr->ijk', A, B, C) fitted to a tensor, batched trace 'bii->b', the attention of 'bhid,bhjd->bhij' with a softmax and 'bhij,bhjd->bhid', and torch.einsum with the sublist format), gradients of each
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(9)
bil = nn.Bilinear(3, 4, 2)
x1 = torch.randn(5, 3)
x2 = torch.randn(5, 4)
y_ref = bil(x1, x2)
y = torch.einsum("bi,oij,bj->bo", x1, bil.weight, x2) + bil.bias
print(torch.allclose(y, y_ref, atol=1e-6))
y.sum().backward()
g_einsum = bil.weight.grad.clone()
bil.zero_grad()
y_ref.sum().backward()
print(torch.allclose(g_einsum, bil.weight.grad, atol=1e-6))

target = torch.einsum("ir,jr,kr->ijk", torch.randn(4, 2), torch.randn(3, 2), torch.randn(5, 2))
A = torch.randn(4, 2, requires_grad=True)
B = torch.randn(3, 2, requires_grad=True)
C = torch.randn(5, 2, requires_grad=True)
opt = torch.optim.Adam([A, B, C], lr=0.05)
for step in range(20):
    approx = torch.einsum("ir,jr,kr->ijk", A, B, C)
    loss = (approx - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item(), A.grad.norm())

M = torch.randn(3, 4, 4, requires_grad=True)
tr = torch.einsum("bii->b", M)
print(torch.allclose(tr, torch.diagonal(M, dim1=-2, dim2=-1).sum(-1)))
tr.sum().backward()
print(M.grad[0])

q = torch.randn(2, 2, 3, 4, requires_grad=True)
k = torch.randn(2, 2, 3, 4)
v = torch.randn(2, 2, 3, 4)
scores = torch.einsum("bhid,bhjd->bhij", q, k) / 4 ** 0.5
attn = scores.softmax(dim=-1)
out = torch.einsum("bhij,bhjd->bhid", attn, v)
out.pow(2).sum().backward()
print(q.grad.sum(dim=(0, 1)))

P = torch.randn(2, 3, requires_grad=True)
Q = torch.randn(3, 4)
sub = torch.einsum(P, [0, 1], Q, [1, 2], [0, 2])
print(torch.allclose(sub, P @ Q))
sub.sum().backward()
print(P.grad)

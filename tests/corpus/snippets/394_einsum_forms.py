# after: "einsum is all you need" blog posts (matrix product, batched matmul, trace, diagonal, outer product, bilinear form, attention scores 'bhqd,bhkd->bhqk', with the same gradients as the ordinary operations)
# expect: match
import torch

torch.manual_seed(9)
A = torch.randn(3, 4, requires_grad=True)
B = torch.randn(4, 5, requires_grad=True)
C = torch.einsum('ij,jk->ik', A, B)
C.sum().backward()
gA, gB = A.grad.clone(), B.grad.clone()
A.grad = None; B.grad = None
(A @ B).sum().backward()
print(torch.allclose(gA, A.grad), torch.allclose(gB, B.grad))
print(C)

S = torch.randn(4, 4, requires_grad=True)
tr = torch.einsum('ii', S)
tr.backward()
print(tr, torch.trace(S), S.grad)
S.grad = None
diag = torch.einsum('ii->i', S)
(diag * torch.arange(4.0)).sum().backward()
print(diag, S.grad)

u = torch.randn(3, requires_grad=True)
v = torch.randn(2, requires_grad=True)
outer = torch.einsum('i,j->ij', u, v)
outer.pow(2).sum().backward()
print(outer, u.grad, v.grad)

W = torch.randn(3, 3, requires_grad=True)
x = torch.randn(5, 3)
y = torch.randn(5, 3)
bil = torch.einsum('bi,ij,bj->b', x, W, y)
bil.sum().backward()
print(bil, W.grad)

q = torch.randn(2, 2, 4, 3, requires_grad=True)
k = torch.randn(2, 2, 4, 3)
scores = torch.einsum('bhqd,bhkd->bhqk', q, k) / 3 ** 0.5
attn = scores.softmax(dim=-1)
attn[..., 0].sum().backward()
print(scores.shape, q.grad.sum())
bmm = torch.einsum('bij,bjk->bik', torch.randn(2, 3, 4), torch.randn(2, 4, 2))
print(bmm.shape, torch.einsum('ij->', A).item() == A.sum().item())

# after: PyTorch forum "gradient of torch.norm at zero is nan?" (x.norm() and torch.linalg.vector_norm at the zero vector give a zero gradient, sqrt((x ** 2).sum()) gives nan, F.normalize's eps, a row of zeros in a batch, the sqrt(sum + eps) fix)
# expect: match
import torch
import torch.nn.functional as F

x = torch.zeros(3, requires_grad=True)
x.norm().backward()
print(x.grad)

x.grad = None
torch.sqrt((x ** 2).sum()).backward()
print(x.grad)

x.grad = None
torch.linalg.vector_norm(x).backward()
print(x.grad)

x.grad = None
torch.sqrt((x ** 2).sum() + 1e-12).backward()
print(x.grad)

rows = torch.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]], requires_grad=True)
n = rows.norm(dim=1)
(n * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(n, rows.grad)

rows.grad = None
unit = F.normalize(rows, dim=1)
unit[:, 0].sum().backward()
print(unit, rows.grad)

rows.grad = None
manual = rows / rows.norm(dim=1, keepdim=True)
manual[:, 0].sum().backward()
print(manual, rows.grad)

d = torch.tensor([1.0, 2.0], requires_grad=True)
dist = torch.cdist(d.view(1, 1, 2), d.view(1, 1, 2))
dist.sum().backward()
print(dist, d.grad)
p = torch.tensor([[0.5, 0.5]], requires_grad=True)
pd = F.pairwise_distance(p, p.detach())
pd.sum().backward()
print(pd, p.grad)

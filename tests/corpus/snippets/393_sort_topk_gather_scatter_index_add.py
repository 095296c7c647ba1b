# after: PyTorch docs examples for sort, topk, gather, scatter, scatter_add, index_add, index_select, take_along_dim and masked_fill, each followed by a backward to see where the gradient goes (a top-k loss, gathering class scores, scatter_add as a segment sum)
# expect: match
import torch

torch.manual_seed(8)
x = torch.randn(3, 5, requires_grad=True)
weights = torch.arange(1.0, 6.0)

values, indices = x.sort(dim=1, descending=True)
(values * weights).sum().backward()
print(indices)
print(x.grad)

x.grad = None
top, idx = x.topk(2, dim=1)
top.sum().backward()
print(idx, x.grad)

x.grad = None
labels = torch.tensor([4, 0, 2])
picked = x.gather(1, labels.unsqueeze(1)).squeeze(1)
(picked * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(picked, x.grad)

x.grad = None
along = torch.take_along_dim(x, x.argmax(dim=1, keepdim=True), dim=1)
along.sum().backward()
print(along.squeeze(), x.grad)

src = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
segment = torch.tensor([0, 0, 1, 2, 2, 2])
sums = torch.zeros(3).scatter_add(0, segment, src)
(sums * torch.tensor([10.0, 20.0, 30.0])).sum().backward()
print(sums, src.grad)

src.grad = None
counts = torch.zeros(3).index_add(0, segment, torch.ones(6))
means = torch.zeros(3).index_add(0, segment, src) / counts
means.sum().backward()
print(means, src.grad)

base = torch.ones(2, 4, requires_grad=True)
scattered = base.scatter(1, torch.tensor([[0, 1], [2, 3]]), torch.full((2, 2), 7.0))
(scattered * torch.arange(8.0).view(2, 4)).sum().backward()
print(scattered, base.grad)

emb = torch.randn(6, 3, requires_grad=True)
rows = emb.index_select(0, torch.tensor([1, 1, 4]))
rows.sum().backward()
print(emb.grad)

emb.grad = None
masked = emb.masked_fill(emb < 0, 0.0)
masked.sum().backward()
print(torch.equal(emb.grad, (emb >= 0).float()))

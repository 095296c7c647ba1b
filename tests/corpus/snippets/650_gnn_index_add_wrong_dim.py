# after: message-passing code that sums edge messages into nodes with index_add_ along the wrong dimension (out.index_add_(1, dst, msg) where the edges run along dimension 0 of msg): "Number of indices (6) should be equal to source.size(dim) (4)"
# expect: explained index-add-size
# mentions: msg | dst | index_add_(0
import torch

torch.manual_seed(7)
num_nodes = 4
x = torch.randn(num_nodes, 4, requires_grad=True)
src = torch.tensor([0, 1, 2, 3, 0, 2])
dst = torch.tensor([1, 2, 3, 0, 2, 1])
W = torch.randn(4, 4, requires_grad=True)
msg = x[src] @ W
out = torch.zeros(num_nodes, 4).index_add_(1, dst, msg)
out.pow(2).sum().backward()

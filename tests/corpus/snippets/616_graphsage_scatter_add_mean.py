# after: GraphSAGE / mean-aggregation message passing written by hand (src, dst = edge_index, agg = torch.zeros(N, F).scatter_add_(0, dst.unsqueeze(-1).expand(-1, F), x[src]), count = torch.bincount(dst, minlength=N).clamp(min=1), h = lin_self(x) + lin_neigh(agg / count), F.normalize(h, p=2, dim=-1), a link-prediction loss with dot products of positive and random negative edges via F.binary_cross_entropy_with_logits)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
N, D = 7, 4
x = torch.randn(N, D)
edge_index = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 1, 2, 3], [1, 2, 3, 4, 5, 6, 0, 0, 1, 2]])


class SAGELayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin_self = nn.Linear(in_dim, out_dim)
        self.lin_neigh = nn.Linear(in_dim, out_dim, bias=False)

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros(x.size(0), x.size(1)).scatter_add_(
            0, dst.unsqueeze(-1).expand(-1, x.size(1)), x[src]
        )
        count = torch.bincount(dst, minlength=x.size(0)).clamp(min=1).unsqueeze(-1)
        h = self.lin_self(x) + self.lin_neigh(agg / count)
        return F.normalize(h, p=2, dim=-1)


layer1 = SAGELayer(D, 8)
layer2 = SAGELayer(8, 8)
opt = torch.optim.SGD(list(layer1.parameters()) + list(layer2.parameters()), lr=0.1)
for step in range(4):
    z = layer2(F.relu(layer1(x, edge_index)), edge_index)
    pos = (z[edge_index[0]] * z[edge_index[1]]).sum(-1)
    neg_edges = torch.randint(0, N, edge_index.shape)
    neg = (z[neg_edges[0]] * z[neg_edges[1]]).sum(-1)
    logits = torch.cat([pos, neg])
    labels = torch.cat([torch.ones_like(pos), torch.zeros_like(neg)])
    loss = F.binary_cross_entropy_with_logits(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))

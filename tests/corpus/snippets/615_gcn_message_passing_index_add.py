# after: "GNNs from scratch" posts (a graph as edge_index of shape (2, E) with self-loops added by torch.cat with torch.arange(N).repeat(2, 1), deg = torch.zeros(N).index_add_(0, col, torch.ones(E)), norm = deg_inv_sqrt[row] * deg_inv_sqrt[col], messages x_j = x[row] * norm.view(-1, 1) summed into out.index_add_(0, col, ...), a two-layer GCN with ReLU and dropout, node classification with F.cross_entropy on a train mask, Adam with weight_decay)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)
num_nodes, num_features, num_classes = 8, 5, 3
x = torch.randn(num_nodes, num_features)
edge_index = torch.tensor(
    [[0, 1, 1, 2, 2, 3, 4, 5, 5, 6, 6, 7, 0, 3], [1, 0, 2, 1, 3, 2, 5, 4, 6, 5, 7, 6, 3, 0]]
)
y = torch.tensor([0, 0, 1, 1, 2, 2, 1, 0])
train_mask = torch.tensor([True, False, True, False, True, True, False, True])


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


class GCNLayer(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))

    def forward(self, x, edge_index):
        edge_index = add_self_loops(edge_index, x.size(0))
        x = self.lin(x)
        row, col = edge_index
        deg = torch.zeros(x.size(0), dtype=x.dtype).index_add_(0, col, torch.ones(col.size(0)))
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt[deg_inv_sqrt == float("inf")] = 0
        norm = deg_inv_sqrt[row] * deg_inv_sqrt[col]
        messages = x[row] * norm.view(-1, 1)
        out = torch.zeros_like(x).index_add_(0, col, messages)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GCNLayer(num_features, 16)
        self.conv2 = GCNLayer(16, num_classes)

    def forward(self, x, edge_index):
        h = F.relu(self.conv1(x, edge_index))
        h = F.dropout(h, p=0.5, training=self.training)
        return self.conv2(h, edge_index)


model = GCN()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
for epoch in range(5):
    model.train()
    optimizer.zero_grad()
    out = model(x, edge_index)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    loss.backward()
    optimizer.step()
model.eval()
pred = model(x, edge_index).argmax(dim=1)
acc = int((pred[~train_mask] == y[~train_mask]).sum()) / int((~train_mask).sum())
print(f"loss {loss.item():.4f} acc {acc:.2f}", pred)

# after: learners' GNN message passing where edge_index was built with torch.tensor from a list of floats (or loaded as float32 from a NumPy array), so out.index_add_(0, col, messages) gets a float index ("index_add_(): Expected dtype int32/int64 for index")
# expect: explained gather-index
# mentions: edge_index | long()
import torch
import torch.nn as nn

torch.manual_seed(2)
x = torch.randn(5, 3)
edge_index = torch.tensor([[0.0, 1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0, 0.0]])
lin = nn.Linear(3, 4)

h = lin(x)
row, col = edge_index
messages = h[row.long()]
out = torch.zeros_like(h).index_add_(0, col, messages)
out.sum().backward()

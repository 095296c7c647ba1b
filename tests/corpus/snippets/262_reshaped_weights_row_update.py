# after: a forum question, updating one row of a reshaped weight in place
# expect: explained leaf-inplace
# mentions: `row` is a view of the leaf `weights` | row = row + 0.5 | row = row.clone()
import torch

weights = torch.ones(6, requires_grad=True)
grid = weights.view(2, 3)
row = grid[0]
row += 0.5

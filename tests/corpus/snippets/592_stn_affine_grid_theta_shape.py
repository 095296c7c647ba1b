# after: Spatial Transformer questions "Expected a batch of 2D affine matrices of shape Nx2x3" (fc_loc's six numbers per image reshaped with theta.view(-1, 3, 2) instead of (-1, 2, 3) before F.affine_grid)
# expect: explained affine-grid-shape
# mentions: theta | view(-1, 2, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
fc_loc = nn.Linear(10, 6)
features = torch.randn(4, 10)
x = torch.rand(4, 1, 12, 12)
theta = fc_loc(features)
theta = theta.view(-1, 3, 2)
grid = F.affine_grid(theta, x.size(), align_corners=False)
out = F.grid_sample(x, grid, align_corners=False)
print(out.shape)

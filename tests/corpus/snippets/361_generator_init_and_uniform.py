# after: reproducibility posts (a torch.Generator seeded for init, nn.init.uniform_ and normal_ with generator=, randn with generator)
# expect: match
import torch
import torch.nn as nn
g = torch.Generator().manual_seed(42)
w = nn.Parameter(torch.empty(3, 2))
nn.init.uniform_(w, -0.1, 0.1, generator=g)
b = torch.empty(2)
nn.init.normal_(b, mean=0.0, std=0.5, generator=g)
noise = torch.randn(4, 3, generator=g)
perm = torch.randperm(5, generator=g)
out = (noise @ w + b).sum()
out.backward()
print(w, b, perm, w.grad)
print(g.initial_seed())

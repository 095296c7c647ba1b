# after: Opacus-style per-sample gradient clipping with torch.func (vmap(grad) over a params dict, per-sample norms, clipped and averaged by hand)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
params = {k: v.detach() for k, v in model.named_parameters()}

def compute_loss(params, sample, target):
    logits = functional_call(model, params, (sample.unsqueeze(0),))
    return F.cross_entropy(logits, target.unsqueeze(0))

data = torch.randn(8, 4)
labels = torch.randint(0, 3, (8,))
per_sample_grads = vmap(grad(compute_loss), in_dims=(None, 0, 0))(params, data, labels)

norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample_grads.values()]).norm(dim=0)
max_norm = 1.0
factors = (max_norm / (norms + 1e-6)).clamp(max=1.0)
clipped = {k: (g * factors.view(-1, *([1] * (g.dim() - 1)))).mean(0) for k, g in per_sample_grads.items()}
print(norms)
for name, g in clipped.items():
    print(name, g.shape, g.abs().sum())

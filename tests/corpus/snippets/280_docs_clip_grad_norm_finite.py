# after: PyTorch docs torch.nn.utils.clip_grad_norm_ (max_norm, norm_type, error_if_nonfinite=True on finite gradients; the returned total norm)
# expect: match
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(16, 4) * 10
loss = model(x).pow(2).mean()
loss.backward()

total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, error_if_nonfinite=True)
print(f"total norm before clipping: {total:.4f}")
after = torch.norm(torch.stack([p.grad.norm(2) for p in model.parameters()]), 2)
print(f"after: {after:.4f}")
inf_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=float("inf"))
print(inf_norm)
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(max(p.grad.abs().max() for p in model.parameters()))

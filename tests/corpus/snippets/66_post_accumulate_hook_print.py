# after: Q&A printing gradient norms per parameter after backward (named_parameters loop)
# expect: match
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(3, 3), nn.Sigmoid(), nn.Linear(3, 1))
x = torch.randn(4, 3)
loss = net(x).mean()
loss.backward()
for name, param in net.named_parameters():
    if param.grad is not None:
        print(f"{name:10s} grad norm {param.grad.norm().item():.6f}")

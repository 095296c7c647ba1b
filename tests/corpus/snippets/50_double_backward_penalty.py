# after: WGAN-GP style gradient penalty (autograd.grad with create_graph, then backward)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(1)
D = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
real = torch.randn(6, 2)
fake = torch.randn(6, 2)
alpha = torch.rand(6, 1)
interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
out = D(interp)
grads = torch.autograd.grad(outputs=out, inputs=interp, grad_outputs=torch.ones_like(out),
                            create_graph=True, retain_graph=True)[0]
penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
penalty.backward()
w = D[0].weight
print(round(penalty.item(), 6))

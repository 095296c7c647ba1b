# after: PyTorch docs "Complex Numbers" autograd notes (a complex nn.Parameter(torch.randn(n, dtype=torch.cfloat)), a real loss from .abs() and .real, the gradient being the conjugate Wirtinger derivative so that SGD on a complex parameter works as written, torch.view_as_real of a complex parameter for an optimizer, torch.view_as_complex back, torch.polar(abs, angle) from real leaves)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(2)
z = nn.Parameter(torch.randn(4, dtype=torch.cfloat))
target = torch.tensor([1 + 1j, -1j, 0.5, 2 - 0.5j], dtype=torch.cfloat)
loss = (z - target).abs().pow(2).sum()
loss.backward()
print(z.grad)
print(torch.allclose(z.grad, 2 * (z - target).detach()))

opt = torch.optim.SGD([z], lr=0.1)
for _ in range(10):
    opt.zero_grad()
    loss = (z - target).abs().pow(2).sum()
    loss.backward()
    opt.step()
print(loss.item(), z.detach())

w_real = torch.view_as_real(torch.randn(3, dtype=torch.cfloat)).clone().requires_grad_(True)
print(w_real.shape)
w = torch.view_as_complex(w_real)
x = torch.randn(5, 3, dtype=torch.cfloat)
out = x @ w
real_loss = out.real.pow(2).sum() + out.imag.abs().sum()
real_loss.backward()
print(w_real.grad)

magnitude = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
phase = torch.tensor([0.0, 1.0, -2.0], requires_grad=True)
c = torch.polar(magnitude, phase)
(c.real.sum() + 2 * c.imag.sum()).backward()
print(magnitude.grad, phase.grad)

# after: complex-autograd questions (torch.polar from magnitude and phase, .angle(), a real loss of a complex product; grads on the real leaves)
# expect: match
import torch

mag = torch.tensor([1.0, 2.0], requires_grad=True)
phase = torch.tensor([0.3, -1.2], requires_grad=True)
z = torch.polar(mag, phase)
w = torch.tensor([0.5 + 0.5j, -1.0 + 2.0j])
out = (z * w)
loss = out.real.sum() + out.imag.pow(2).sum() + z.angle().sum()
loss.backward()
print(z, loss)
print(mag.grad, phase.grad)

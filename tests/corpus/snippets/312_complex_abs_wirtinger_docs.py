# after: PyTorch docs "Autograd for Complex Numbers" (z.abs() and (z * z.conj()).real on a complex leaf: the gradient is the conjugate Wirtinger derivative times 2)
# expect: match
import torch

z = torch.tensor([3.0 + 4.0j, 1.0 - 1.0j], requires_grad=True)
r = z.abs().sum()
r.backward()
print(r, z.grad)

z.grad = None
s = (z * z.conj()).real.sum()
s.backward()
print(s, z.grad)
print(torch.allclose(z.grad, 2 * z.detach()))

# after: PyTorch docs "Autograd for Complex Numbers" (a real loss of complex tensors; the conjugate Wirtinger gradient)
# expect: match
import torch

z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
w = torch.randn(2, dtype=torch.cfloat, requires_grad=True)

loss = (z * w).abs().pow(2).sum()
loss.backward()
print(z.grad)
print(w.grad)

x = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
y = (x.real ** 2 + x.imag ** 2).sum()
y.backward()
print(torch.allclose(x.grad, 2 * x.detach()))

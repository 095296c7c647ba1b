# after: PyTorch docs torch.view_as_real / view_as_complex (a complex weight trained with a real loss on its real and imaginary parts)
# expect: match
import torch

torch.manual_seed(0)
w = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
x = torch.randn(4, 3, dtype=torch.cfloat)
target = torch.randn(4, dtype=torch.cfloat)
pred = x @ w
err = torch.view_as_real(pred - target)
print(err.shape)
loss = err.pow(2).sum()
loss.backward()
print(loss)
print(w.grad)
back = torch.view_as_complex(err.detach())
print(torch.allclose(back, (pred - target).detach()))

# after: PyTorch docs "Autograd mechanics: Locally disabling gradient computation" (no_grad, set_grad_enabled, inference_mode)
# expect: match
import torch

x = torch.tensor([1.], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad)

is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
print(y.requires_grad)

torch.set_grad_enabled(True)
y = x * 2
print(y.requires_grad)

torch.set_grad_enabled(False)
y = x * 2
print(y.requires_grad)
torch.set_grad_enabled(True)


@torch.no_grad()
def doubler(x):
    return x * 2


z = doubler(x)
print(z.requires_grad)

with torch.inference_mode():
    y = x * 2
print(y.requires_grad, y.is_inference())


@torch.inference_mode()
def tripler(x):
    return x * 3


print(tripler(x).requires_grad)
w = (x * 5).sum()
w.backward()
print(x.grad)

# after: PyTorch docs torch.no_grad used as a decorator, and enable_grad inside it
# expect: match
import torch

x = torch.tensor([1.0], requires_grad=True)


@torch.no_grad()
def doubler(x):
    return x * 2


z = doubler(x)
print(z.requires_grad)


@torch.enable_grad()
def tripler(x):
    return x * 3


with torch.no_grad():
    z2 = tripler(x)
print(z2.requires_grad)
z2.backward()
print(x.grad)

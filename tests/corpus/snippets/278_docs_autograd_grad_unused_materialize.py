# after: PyTorch docs torch.autograd.grad (allow_unused=True gives None for an input the output does not use; materialize_grads=True gives zeros)
# expect: match
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([0.5, -0.5], requires_grad=True)
z = torch.tensor([3.0, 4.0], requires_grad=True)
out = (x * 2 + y.sin()).sum()

gx, gz = torch.autograd.grad(out, (x, z), allow_unused=True, retain_graph=True)
print(gx, gz)
gx, gy, gz = torch.autograd.grad(out, (x, y, z), materialize_grads=True, retain_graph=True)
print(gx, gy, gz)
try:
    torch.autograd.grad(out, (x, z))
except RuntimeError as err:
    print("without allow_unused:", str(err).split(".")[0])

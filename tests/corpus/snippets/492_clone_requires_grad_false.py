# after: PyTorch forum "you can only change requires_grad flags of leaf variables" (a copy of a trained tensor excluded from the graph with b.clone().requires_grad_(False), which is not a leaf, instead of detach())
# expect: explained non-leaf-requires-grad
# mentions: `b.clone()` is computed from tensors that require grad | b.clone().detach()
import torch

a = torch.tensor([2., 3.], requires_grad=True)
b = a * 2
d = b.clone().requires_grad_(False)
print((d * a).sum())

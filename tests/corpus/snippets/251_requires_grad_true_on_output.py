# after: Stack Overflow "you can only change requires_grad flags of leaf variables" (trying to make an intermediate tensor keep its gradient)
# expect: explained non-leaf-requires-grad
# mentions: `z` | z.retain_grad()
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
z = a * 3
z.requires_grad = True
print(z)

# after: Stack Overflow "you can only change requires_grad flags of leaf variables" (freezing an activation by flipping its flag)
# expect: explained non-leaf-requires-grad
# mentions: `features` | features.detach()
import torch

W = torch.randn(3, 3, requires_grad=True)
x = torch.randn(2, 3)
features = x @ W
features.requires_grad = False

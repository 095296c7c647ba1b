# after: Stack Overflow "masking a tensor in place breaks backward" (an element of an activation zeroed with indexing after it was used)
# expect: explained saved-tensor-modified
# mentions: `activations` | line 9 | clone()
import torch

weights = torch.randn(4, requires_grad=True)
activations = torch.exp(weights)
energy = (activations * 3).sum() + activations.sum()
activations[0] = 0
energy.backward()

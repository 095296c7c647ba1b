# after: beginner forum post: requires_grad_() called on the integer class labels as well as the inputs
# expect: explained integer-requires-grad
# mentions: `labels` | delete `labels.requires_grad_()`
import torch

inputs = torch.randn(4, 3).requires_grad_()
labels = torch.tensor([0, 1, 2, 1])
labels.requires_grad_()
loss = torch.nn.functional.cross_entropy(inputs, labels)
loss.backward()

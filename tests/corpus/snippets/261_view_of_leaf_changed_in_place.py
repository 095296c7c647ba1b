# after: a forum question, "a view of a leaf Variable that requires grad" with slicing
# expect: explained leaf-inplace
# mentions: `first` is a view of the leaf `x` | line 7 | first = first.mul(2)
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
first = x[:2]
first.mul_(2)
loss = (x * first.sum()).sum()
loss.backward()

# after: PyTorch forum "one of the variables needed for gradient computation has been modified by an inplace operation"
# expect: explained saved-tensor-modified
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()
c = b * 2
b.mul_(3)
c.sum().backward()

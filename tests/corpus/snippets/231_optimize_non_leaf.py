# after: PyTorch forum "ValueError: can't optimize a non-leaf Tensor" (weights scaled after requires_grad=True, then handed to the optimizer)
# expect: explained optimize-non-leaf
# mentions: `weights` | line 6 | weights = (torch.randn(10, 1) * 0.01).requires_grad_()
import torch

weights = torch.randn(10, 1, requires_grad=True) * 0.01
bias = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([weights, bias], lr=0.1)

# after: Stack Overflow "Boolean value of Tensor with more than one value is ambiguous" (an if on a whole tensor inside a hand-written activation)
# expect: explained ambiguous-bool
# mentions: `z > 0` | torch.where(z > 0, a, b) | (z > 0).any()
import torch


def my_relu(z):
    if z > 0:
        return z
    else:
        return 0 * z


inputs = torch.randn(4, requires_grad=True)
activations = my_relu(inputs)
activations.sum().backward()

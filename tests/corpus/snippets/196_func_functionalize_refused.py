# after: PyTorch docs torch.func.functionalize example (mutations removed from a program)
# expect: refused
# mentions: functionalize
import torch
from torch.func import functionalize


def f(a):
    b = a + 1
    c = b.view(-1)
    c.add_(1)
    return b


inpt = torch.randn(2)
out1 = f(inpt)
out2 = functionalize(f)(inpt)
print(torch.allclose(out1, out2))

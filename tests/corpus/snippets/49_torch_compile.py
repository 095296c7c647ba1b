# after: PyTorch 2 "Introduction to torch.compile"
# expect: refused
import torch


def foo(x, y):
    return torch.sin(x) + torch.cos(y)


opt_foo = torch.compile(foo)

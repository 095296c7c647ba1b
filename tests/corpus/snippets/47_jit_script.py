# after: PyTorch "TorchScript" tutorial torch.jit.script
# expect: refused
import torch


def f(x):
    return x * 2


scripted = torch.jit.script(f)

# after: PyTorch forum "How to print the computational graph" answers (type(loss.grad_fn), walking next_functions and printing type(fn).__name__)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
x = torch.randn(4, 3)
loss = model(x).pow(2).mean()
print(type(loss.grad_fn))
print(loss.grad_fn.__class__.__name__)


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + type(fn).__name__)
    for next_fn, _ in fn.next_functions:
        walk(next_fn, depth + 1)


walk(loss.grad_fn)
print(isinstance(loss.grad_fn, type(loss.grad_fn)))

# after: PyTorch tutorial "Hooks for autograd saved tensors", unconventional examples (pack to a list index, to a tuple with a function)
# expect: match
import torch

storage = []


def pack(x):
    storage.append(x)
    return len(storage) - 1


def unpack(x):
    return storage[x]


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()

assert x.grad.equal(2 * x)
print(len(storage), x.grad)


def pack(x):
    delta = torch.randn(*x.size())
    return x - delta, lambda x: x + delta


def unpack(packed):
    x, f = packed
    return f(x)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()

assert torch.allclose(x.grad, 2 * x)
print(x.grad)

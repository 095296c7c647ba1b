# after: PyTorch docs torch.autograd.graph.register_multi_grad_hook (the "all" mode example with four tensors, backward with inputs=, and the "any" mode)
# expect: match
import torch

torch.manual_seed(0)
a = torch.rand(2, 3, requires_grad=True)
b = torch.rand(2, 3, requires_grad=True)
c = a * b
d = a * b


def fn(grads):
    print([g is not None for g in grads])


handle = torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)
c.sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)
handle.remove()

first = []
torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: first.append(g.sum()), mode="any")
(a * 2 + b * 3).sum().backward()
print(first, a.grad)

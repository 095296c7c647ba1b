# after: PyTorch docs torch.autograd.grad with several outputs and grad_outputs, allow_unused with materialize_grads
# expect: match
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -0.5], requires_grad=True)
unused = torch.tensor(3.0, requires_grad=True)
a = x * w
b = (x ** 2).sum()
gx, gw, gu = torch.autograd.grad([a, b], [x, w, unused], grad_outputs=[torch.ones(2), torch.tensor(2.0)], allow_unused=True, materialize_grads=True, retain_graph=True)
print(gx, gw, gu)
torch.autograd.backward([a.sum(), b], [torch.tensor(1.0), torch.tensor(0.5)])
print(x.grad, w.grad)

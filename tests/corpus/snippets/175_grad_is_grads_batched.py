# after: PyTorch docs torch.autograd.grad (grad_outputs, allow_unused, materialize_grads, is_grads_batched)
# expect: match
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
unused = torch.tensor([5.0], requires_grad=True)
y = x ** 2
g, = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 0.5, 0.25]), retain_graph=True)
print(g)
gx, gu = torch.autograd.grad(y.sum(), [x, unused], allow_unused=True, retain_graph=True)
print(gx, gu)
gx, gu = torch.autograd.grad(y.sum(), [x, unused], materialize_grads=True, retain_graph=True)
print(gu)
rows, = torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)
print(rows)

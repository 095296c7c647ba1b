# after: PyTorch docs torch.func.grad_and_value and torch.vmap (batched dot products, a loss and its gradient at once)
# expect: match
import torch
from torch.func import grad_and_value

x = torch.randn(5)
w = torch.randn(5)


def loss_fn(w, x, y):
    pred = torch.dot(w, x)
    return (pred - y) ** 2


g, loss = grad_and_value(loss_fn)(w, x, torch.tensor(1.0))
print(loss, g)
batched_dot = torch.vmap(torch.dot)
xs, ys = torch.randn(2, 5), torch.randn(2, 5)
print(batched_dot(xs, ys))
per_example = torch.vmap(grad_and_value(loss_fn), in_dims=(None, 0, 0))(w, xs, torch.tensor([1.0, -1.0]))
print(per_example[0].shape, per_example[1])

# after: PyTorch docs nn.Module.register_full_backward_hook (print grad_output, return a new grad_input)
# expect: match
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))


def print_and_halve(module, grad_input, grad_output):
    print(module, [g.shape for g in grad_output])
    return tuple(g * 0.5 if g is not None else None for g in grad_input)


handle = model[1].register_full_backward_hook(print_and_halve)
x = torch.tensor([[1.0, -1.0, 2.0]], requires_grad=True)
out = model(x).sum()
out.backward()
print(x.grad)
print(model[0].weight.grad)
handle.remove()

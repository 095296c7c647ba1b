# after: PyTorch docs nn.Module.register_full_backward_hook, gradient inspection
# expect: match
import torch
import torch.nn as nn

seen = []


def print_grad(module, grad_input, grad_output):
    seen.append(grad_output[0].shape)
    print(isinstance(module, nn.Linear), grad_output[0].sum().item())


layer = nn.Linear(3, 2)
layer.register_full_backward_hook(print_grad)
inp = torch.randn(4, 3, requires_grad=True)
out = layer(inp).sum()
out.backward()
print(seen, inp.grad.sum().item())

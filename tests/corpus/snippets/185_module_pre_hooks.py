# after: PyTorch docs nn.Module.register_forward_pre_hook / register_full_backward_pre_hook (change an input, scale grad_output)
# expect: match
import torch
import torch.nn as nn

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    lin.bias.zero_()


def double_input(module, args):
    return (args[0] * 2,)


def scale_grad_output(module, grad_output):
    print("grad_output", grad_output[0])
    return (grad_output[0] * 10,)


h1 = lin.register_forward_pre_hook(double_input)
h2 = lin.register_full_backward_pre_hook(scale_grad_output)
x = torch.tensor([[1.0, -1.0]], requires_grad=True)
y = lin(x)
print(y)
y.sum().backward()
print(x.grad)
print(lin.weight.grad)
h1.remove()
h2.remove()
print(lin(x))

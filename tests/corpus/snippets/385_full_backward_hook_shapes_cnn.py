# after: blog posts on nn.Module backward hooks ("print grad_input and grad_output shapes for every layer" with register_full_backward_hook over named_modules, a pre-hook that rescales grad_output, and handle.remove())
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, kernel_size=3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(4 * 4 * 4, 10),
)

def shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]

handles = []
grad_norms = {}
for name, module in model.named_modules():
    if name == "":
        continue
    def hook(module, grad_input, grad_output, name=name):
        print(f"{name:>2} {module.__class__.__name__:10s} grad_input {shapes(grad_input)} grad_output {shapes(grad_output)}")
        grad_norms[name] = grad_output[0].norm().item()
    handles.append(module.register_full_backward_hook(hook))

x = torch.randn(2, 1, 8, 8, requires_grad=True)
target = torch.tensor([3, 7])
loss = nn.functional.cross_entropy(model(x), target)
loss.backward()
print({k: round(v, 6) for k, v in grad_norms.items()})
print(x.grad.abs().sum())

for h in handles:
    h.remove()

def halve(module, grad_output):
    return (grad_output[0] * 0.5,)

pre = model[4].register_full_backward_pre_hook(halve)
model.zero_grad()
x.grad = None
nn.functional.cross_entropy(model(x), target).backward()
print(model[0].weight.grad.sum(), x.grad.abs().sum())
pre.remove()

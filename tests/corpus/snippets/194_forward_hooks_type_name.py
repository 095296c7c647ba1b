# after: "Intermediate activations: the forward hook" blog posts (print type(module).__name__ and shapes, collect activations)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Softmax(dim=1))
activations = {}


def get_activation(name):
    def hook(model, input, output):
        activations[name] = output.detach()
    return hook


def hook_fn(m, i, o):
    print(type(m).__name__, tuple(o.shape))


for name, layer in model.named_children():
    layer.register_forward_hook(hook_fn)
    layer.register_forward_hook(get_activation(name))

x = torch.randn(3, 4)
out = model(x)
print(sorted(activations))
print(activations["1"].min() >= 0)
for act in (torch.relu, torch.tanh, nn.functional.gelu):
    print(act.__name__, act(torch.tensor([-1.0, 1.0])))
loss = out[:, 0].sum()
loss.backward()
print(model[0].bias.grad)

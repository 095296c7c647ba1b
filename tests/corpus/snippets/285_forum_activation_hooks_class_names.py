# after: PyTorch forum "How can I extract intermediate layer output?" (register_forward_hook on every layer, keyed by f"{name}_{module.__class__.__name__}")
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(6, 2)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


model = Net()
activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()

    return hook


handles = []
for name, module in model.named_children():
    key = f"{name}_{module.__class__.__name__}"
    handles.append(module.register_forward_hook(get_activation(key)))

out = model(torch.randn(3, 4))
out.sum().backward()
for key, value in activation.items():
    print(key, tuple(value.shape), f"{value.abs().mean():.4f}")
for h in handles:
    h.remove()
print(model.__class__.__name__, len(activation))

# after: PyTorch tutorial "Hooks for autograd saved tensors", Saving tensors to CPU (save_on_cpu in a module's forward)
# expect: match
import torch
import torch.nn as nn


def pack_hook(x):
    return (x.device, x.cpu())


def unpack_hook(packed):
    device, tensor = packed
    return tensor.to(device)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x * x
y.sum().backward()

print(torch.allclose(x.grad, (2 * x)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5))

    def forward(self, x):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            # some computation
            return self.w * x


x = torch.randn(5)
model = Model()
loss = model(x).sum()
loss.backward()
print(model.w.grad)


class SaveToCpu(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return self.module(*args, **kwargs)


model = nn.Sequential(
    nn.Linear(10, 100),
    SaveToCpu(nn.Linear(100, 100)),
    nn.Linear(100, 10),
)

x = torch.randn(10)
loss = model(x).sum()
loss.backward()

# after: PyTorch tutorial "Hooks for autograd saved tensors", SaveToDisk module (torch.save / torch.load inside the hooks)
# expect: refused
# mentions: torch.save | files
import torch
import torch.nn as nn

SAVE_ON_DISK_THRESHOLD = 1000


def pack_hook(x):
    if x.numel() < SAVE_ON_DISK_THRESHOLD:
        return x
    name = "saved_" + str(x.numel())
    torch.save(x, name)
    return name


def unpack_hook(tensor_or_name):
    if isinstance(tensor_or_name, torch.Tensor):
        return tensor_or_name
    return torch.load(tensor_or_name)


class SaveToDisk(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            return self.module(*args, **kwargs)


model = SaveToDisk(nn.Linear(100, 100))
loss = model(torch.randn(20, 100)).sum()
loss.backward()

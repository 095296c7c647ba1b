# after: vmap over a helper that turns a norm into a Python number (v.norm().item()), as code written for one example does: "vmap: It looks like you're calling .item() on a Tensor"
# expect: explained vmap-item
# mentions: `normalize` | v.norm().item()
import torch
from torch.func import vmap

def normalize(v):
    norm = v.norm().item()
    return v / norm

batch = torch.randn(4, 3)
out = vmap(normalize)(batch)
print(out)

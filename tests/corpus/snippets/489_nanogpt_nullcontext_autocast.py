# after: nanoGPT train.py device setup (`from contextlib import nullcontext`, ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(...), `with ctx:` around the forward)
# expect: match
from contextlib import nullcontext

import torch

device_type = 'cpu'
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)
w = torch.ones(2, requires_grad=True)
with ctx:
    loss = (w * 3).sum()
loss.backward()
print(w.grad)

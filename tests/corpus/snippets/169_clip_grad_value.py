# after: PyTorch docs torch.nn.utils.clip_grad_value_ (and a hook that clamps each gradient instead)
# expect: match
import torch
from torch import nn

model = nn.Linear(3, 2)
x = torch.tensor([[100.0, -200.0, 300.0]])
loss = model(x).pow(2).sum()
loss.backward()
print(model.weight.grad.abs().max() > 1)
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
print(model.weight.grad)
print(model.bias.grad)

for p in model.parameters():
    p.register_hook(lambda grad: torch.clamp(grad, -0.1, 0.1))
model.zero_grad()
loss = model(x).pow(2).sum()
loss.backward()
print(model.weight.grad)

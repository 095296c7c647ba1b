# after: PyTorch docs "Autograd mechanics: Grad Modes" (no_grad, inference_mode, set_grad_enabled, requires_grad_ to freeze, model.eval() is not no_grad)
# expect: match
import torch
import torch.nn as nn

x = torch.ones(2, 2, requires_grad=True)

with torch.no_grad():
    y = x * 2
print(y.requires_grad)

with torch.inference_mode():
    z = x * 3
print(z.requires_grad, z.is_inference())

is_train = False
with torch.set_grad_enabled(is_train):
    w = x * 4
print(w.requires_grad)

torch.set_grad_enabled(True)
v = x * 5
print(v.requires_grad)

model = nn.Sequential(nn.Linear(2, 3), nn.Dropout(p=0.5), nn.Linear(3, 1))
model.eval()
out = model(x)
print(out.requires_grad)
model[0].requires_grad_(False)
out = model(x).sum()
out.backward()
print(model[0].weight.grad, model[2].weight.grad)
print(x.grad)

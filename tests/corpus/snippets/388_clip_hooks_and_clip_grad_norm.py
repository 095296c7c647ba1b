# after: Stack Overflow "How to do gradient clipping in pytorch?" (clip_grad_norm_ returning the total norm, clip_grad_value_, and the answer registering p.register_hook(lambda grad: torch.clamp(grad, -clip_value, clip_value)) on every parameter), with the total norm computed by hand and norm_type=inf
# expect: match
import copy
import torch
import torch.nn as nn

torch.manual_seed(4)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(16, 3) * 10
y = torch.randn(16, 2)
loss_fn = nn.MSELoss()

loss = loss_fn(model(x), y)
loss.backward()
parameters = [p for p in model.parameters() if p.grad is not None]
by_hand = torch.norm(torch.stack([torch.norm(p.grad.detach(), 2.0) for p in parameters]), 2.0)
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total_norm, by_hand, torch.equal(total_norm, by_hand))
after = torch.norm(torch.stack([p.grad.norm() for p in parameters]))
print(after)

model.zero_grad()
loss_fn(model(x), y).backward()
inf_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=float('inf'))
print(inf_norm, max(p.grad.abs().max() for p in model.parameters()))

clipped = copy.deepcopy(model)
clip_value = 0.05
for p in clipped.parameters():
    p.register_hook(lambda grad: torch.clamp(grad, -clip_value, clip_value))
clipped.zero_grad()
loss_fn(clipped(x), y).backward()

model.zero_grad()
loss_fn(model(x), y).backward()
torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=clip_value)
for a, b in zip(clipped.parameters(), model.parameters()):
    print(torch.equal(a.grad, b.grad), a.grad.abs().max().item())

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 2.0, foreach=True)
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f} grad norm {norm.item():.4f}")

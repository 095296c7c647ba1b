# after: "Gradient clipping in PyTorch" posts (clip_grad_norm_ between backward and step, printing the total norm)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(42)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
inputs = torch.randn(64, 10) * 10
targets = torch.randn(64, 1) * 10

for step in range(5):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    loss.backward()
    total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grad norm before clipping {total_norm:.4f}")

norm_after = torch.norm(torch.stack([p.grad.norm(2) for p in model.parameters()]), 2)
print(norm_after <= 1.0 + 1e-6)

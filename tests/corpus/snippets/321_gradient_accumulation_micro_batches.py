# after: "Gradient accumulation in PyTorch" posts (loss / accum_steps over micro-batches, step every accum_steps, equal to the full-batch gradient)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.randn(16, 5)
targets = torch.randn(16, 1)

full = criterion(model(inputs), targets)
full_grad = torch.autograd.grad(full, model[0].weight)[0]

accum_steps = 4
optimizer.zero_grad()
for i, (xb, yb) in enumerate(zip(inputs.chunk(accum_steps), targets.chunk(accum_steps))):
    loss = criterion(model(xb), yb) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        print(torch.allclose(model[0].weight.grad, full_grad, atol=1e-6))
        optimizer.step()
        optimizer.zero_grad()
print(model[0].weight.grad)
print(model[2].weight)

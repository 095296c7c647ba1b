# after: PyTorch forum "element 0 of tensors does not require grad" (a classifier's logits detached to log them, then the loss computed from the detached copy)
# expect: explained no-grad-to-compute
# mentions: `logits` | .detach() | line 15
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

features = torch.randn(6, 4)
labels = torch.tensor([0, 2, 1, 0, 1, 2])

optimizer.zero_grad()
logits = model(features).detach()
print("mean logit", logits.mean().item())
loss = criterion(logits, labels)
loss.backward()
optimizer.step()

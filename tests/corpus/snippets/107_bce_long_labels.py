# after: Stack Overflow "RuntimeError: Found dtype Long but expected Float" (BCELoss with integer 0/1 labels)
# expect: explained dtype-mismatch
# mentions: criterion(probs, labels.float())
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

features = torch.randn(10, 3)
labels = torch.randint(0, 2, (10, 1))

probs = model(features)
loss = criterion(probs, labels)
optimizer.zero_grad()
loss.backward()
optimizer.step()

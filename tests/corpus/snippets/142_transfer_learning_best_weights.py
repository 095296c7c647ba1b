# after: PyTorch tutorial "Transfer Learning for Computer Vision" (train_model keeps the best weights with copy.deepcopy)
# expect: match
import copy

import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
inputs = torch.randn(16, 4)
labels = torch.randint(0, 3, (16,))

best_model_wts = copy.deepcopy(model.state_dict())
best_loss = float("inf")
for epoch in range(5):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
    if loss.item() < best_loss:
        best_loss = loss.item()
        best_model_wts = copy.deepcopy(model.state_dict())

model.load_state_dict(best_model_wts)
final = criterion(model(inputs), labels)
print(sorted(best_model_wts.keys()))

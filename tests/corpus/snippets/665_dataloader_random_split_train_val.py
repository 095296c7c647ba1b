# after: "PyTorch training loop" blog templates with torch.utils.data (TensorDataset(X, y), random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(42)) by fractions, DataLoader(train_ds, batch_size=16, shuffle=True, generator=...) and DataLoader(val_ds, batch_size=32), train_one_epoch returning running_loss / len(loader.dataset), validate under torch.no_grad with correct += (preds == yb).sum().item(), best_val tracking with copy.deepcopy(model.state_dict()) and load_state_dict at the end)
# expect: match
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
X = torch.randn(100, 4)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).long()
dataset = TensorDataset(X, y)
train_ds, val_ds = random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
print(len(train_ds), len(val_ds), train_ds.indices[:5])
train_loader = DataLoader(train_ds, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(1))
val_loader = DataLoader(val_ds, batch_size=32)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)


def train_one_epoch(model, loader):
    model.train()
    running_loss = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * xb.size(0)
    return running_loss / len(loader.dataset)


def validate(model, loader):
    model.eval()
    correct, total, val_loss = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            val_loss += criterion(out, yb).item() * xb.size(0)
            preds = out.argmax(dim=1)
            correct += (preds == yb).sum().item()
            total += yb.size(0)
    return val_loss / total, correct / total


best_val = float("inf")
best_state = None
for epoch in range(5):
    train_loss = train_one_epoch(model, train_loader)
    val_loss, val_acc = validate(model, val_loader)
    if val_loss < best_val:
        best_val = val_loss
        best_state = copy.deepcopy(model.state_dict())
    print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss:.4f} acc {val_acc:.2f}")
model.load_state_dict(best_state)
print(validate(model, val_loader), best_val)

# after: Stack Overflow "loss.backward() RuntimeError element 0 of tensors does not require grad" (an evaluate helper computing the loss under torch.no_grad(), its result then used to train)
# expect: explained no-grad-to-compute
# mentions: `val_loss` is what `evaluate(...)` returns | `with torch.no_grad():` (line 17)
import torch
import torch.nn as nn

torch.manual_seed(1)
clf = nn.Linear(4, 3)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(clf.parameters(), lr=1e-3)
x_val = torch.randn(10, 4)
y_val = torch.randint(0, 3, (10,))


def evaluate(model, xb, yb):
    model.eval()
    with torch.no_grad():
        return criterion(model(xb), yb)


val_loss = evaluate(clf, x_val, y_val)
print(f"validation loss {val_loss.item():.4f}")
optimizer.zero_grad()
val_loss.backward()
optimizer.step()

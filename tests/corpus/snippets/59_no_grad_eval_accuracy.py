# after: typical logistic regression tutorial with sigmoid, BCELoss and accuracy under no_grad
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(50, 2)
y = ((X[:, 0] + X[:, 1]) > 0).float().unsqueeze(1)


class LogisticRegression(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.linear = nn.Linear(n, 1)

    def forward(self, x):
        return torch.sigmoid(self.linear(x))


model = LogisticRegression(2)
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(100):
    y_pred = model(X)
    loss = criterion(y_pred, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if (epoch + 1) % 25 == 0:
        print(f'epoch: {epoch+1}, loss = {loss.item():.4f}')
with torch.no_grad():
    y_predicted_cls = model(X).round()
    acc = y_predicted_cls.eq(y).sum() / float(y.shape[0])
    print(f'accuracy: {acc.item():.4f}')

# after: PyTorch forum "Trying to backward through the graph a second time" (the forward pass and loss written once, before the training loop)
# expect: explained backward-twice
# mentions: `loss` | line 14 | into the loop | line 13, line 14
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
X_train = torch.randn(16, 3)
y_train = torch.randn(16, 1)

predictions = model(X_train)
loss = criterion(predictions, y_train)
for epoch in range(5):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())

# after: Stack Overflow "Using a target size that is different to the input size" (MSELoss with y of shape [N] and predictions [N, 1]: it runs, silently broadcasting)
# expect: match warns target-size-broadcast
# mentions: y.unsqueeze(1) | [10, 10]
import torch
import torch.nn as nn

torch.manual_seed(1)
x = torch.linspace(0, 1, 10).unsqueeze(1)
y = 3 * x.squeeze() + 1

model = nn.Linear(1, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(3):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())

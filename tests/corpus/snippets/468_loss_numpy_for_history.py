# after: Stack Overflow "Can't call numpy() on Tensor that requires grad" (the training loss appended to a history list with loss.numpy() for plotting)
# expect: explained numpy-requires-grad
# mentions: `loss` requires grad | loss.detach().numpy()
import torch
import torch.nn as nn

torch.manual_seed(4)
reg = nn.Linear(1, 1)
X = torch.linspace(0, 1, 20).unsqueeze(1)
Y = 2 * X + 1
optimizer = torch.optim.SGD(reg.parameters(), lr=0.1)
loss_history = []
for epoch in range(3):
    loss = ((reg(X) - Y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    loss_history.append(loss.numpy())
print(loss_history)

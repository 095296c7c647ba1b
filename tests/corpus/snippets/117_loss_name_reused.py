# after: Stack Overflow "TypeError: 'Tensor' object is not callable" (loss = loss(output, target) in a training loop: the second iteration calls a tensor)
# expect: explained not-callable
# mentions: `loss` | loss = loss(output, target) | line 17 | criterion = ...
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
loss = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

data = torch.randn(8, 2)
target = data.sum(dim=1, keepdim=True)

for epoch in range(3):
    optimizer.zero_grad()
    output = model(data)
    loss = loss(output, target)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())

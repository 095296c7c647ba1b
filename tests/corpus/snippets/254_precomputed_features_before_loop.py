# after: PyTorch forum "Trying to backward through the graph a second time" (the encoder's features computed once before the epochs, only the head trained in the loop)
# expect: explained backward-twice
# mentions: `features` | line 12 | features = encoder(images).detach()
import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(8, 4), nn.ReLU())
head = nn.Linear(4, 2)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
images = torch.randn(5, 8)
labels = torch.tensor([0, 1, 0, 1, 1])
features = encoder(images)

for epoch in range(3):
    loss = nn.functional.cross_entropy(head(features), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

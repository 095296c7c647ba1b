# after: PyTorch forum "'CrossEntropyLoss' object has no attribute 'backward'" (the criterion assigned to loss instead of called)
# expect: explained attribute-error
# mentions: `loss` is the loss function itself | `loss = criterion(predictions, targets)`
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 3)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(6, 4)
y = torch.randint(0, 3, (6,))
outputs = model(x)
loss = criterion
optimizer.zero_grad()
loss.backward()

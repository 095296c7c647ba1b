# after: Stack Overflow "grad can be implicitly created only for scalar outputs" (loss = criterion with reduction='none', then loss.backward())
# expect: explained non-scalar-backward
# mentions: `loss` | loss.sum().backward()
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
criterion = nn.MSELoss(reduction='none')
inputs = torch.randn(8, 3)
labels = torch.randn(8, 1)

outputs = model(inputs)
loss = criterion(outputs, labels)
print(loss.shape)
loss.backward()

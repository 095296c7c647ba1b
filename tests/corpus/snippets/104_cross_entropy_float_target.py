# after: Stack Overflow "expected scalar type Long but found Float" / "expected target dtype to be Long" with nn.CrossEntropyLoss and float labels
# expect: explained class-target-dtype
# mentions: `labels` | criterion(outputs, labels.long())
import torch
import torch.nn as nn

model = nn.Linear(4, 3)
criterion = nn.CrossEntropyLoss()

inputs = torch.randn(6, 4)
labels = torch.tensor([0, 2, 1, 1, 0, 2], dtype=torch.float32)

outputs = model(inputs)
loss = criterion(outputs, labels)
loss.backward()

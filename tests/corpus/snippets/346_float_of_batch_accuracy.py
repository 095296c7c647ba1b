# after: Stack Overflow "only one element tensors can be converted to Python scalars" (accuracy computed per example, then float() of the whole batch)
# expect: explained many-to-number
# mentions: `correct` holds more than one number | float(correct) | correct.sum().item()
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 3)
inputs = torch.randn(10, 4)
labels = torch.randint(0, 3, (10,))
with torch.no_grad():
    predicted = model(inputs).argmax(dim=1)
correct = (predicted == labels).float()
accuracy = float(correct) / len(labels)
print(accuracy)

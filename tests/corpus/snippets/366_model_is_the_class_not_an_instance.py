# after: Stack Overflow "__init__() takes 1 positional argument but 2 were given" (model = Net without brackets, then model(inputs))
# expect: explained class-not-instance
# mentions: `model` is the class `Net` itself | `model = Net()` on line 16
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

model = Net
inputs = torch.randn(5, 4)
outputs = model(inputs)

# after: PyTorch forum "a leaf Variable that requires grad is being used in an in-place operation" (scaling a layer's initial weights with mul_ outside torch.no_grad())
# expect: explained leaf-inplace
# mentions: `model.fc.weight` is a leaf | with torch.no_grad(): model.fc.weight
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(10, 16)
        self.fc = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))


torch.manual_seed(3)
model = Classifier()
model.fc.weight.mul_(0.01)
print(model(torch.randn(2, 10)))

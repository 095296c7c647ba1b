# after: PyTorch forum "RuntimeError: all elements of input should be between 0 and 1" (nn.BCELoss on the output of a Linear layer, the sigmoid forgotten in forward)
# expect: explained bce-probabilities
# mentions: `y_hat` | nn.BCEWithLogitsLoss()(y_hat, y_true) | torch.sigmoid(y_hat)
import torch
import torch.nn as nn

class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

torch.manual_seed(31)
model = Detector()
loss_fn = nn.BCELoss()
x = torch.randn(12, 8) * 3
y_true = torch.randint(0, 2, (12, 1)).float()
y_hat = model(x)
loss = loss_fn(y_hat, y_true)
loss.backward()

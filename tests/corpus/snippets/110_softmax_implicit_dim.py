# after: older classifier tutorials calling F.softmax(output) without dim to print class probabilities
# expect: match warns implicit-softmax-dim
# mentions: `softmax` | F.softmax(output, dim=-1)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, n_features, n_classes):
        super(Classifier, self).__init__()
        self.fc1 = nn.Linear(n_features, 16)
        self.fc2 = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


net = Classifier(4, 3)
sample = torch.randn(5, 4)
output = net(sample)
probabilities = F.softmax(output)
print(probabilities)
print(probabilities.sum(dim=1))
_, predicted = torch.max(output, 1)
print(predicted)
loss = -probabilities[range(5), predicted].log().mean()
loss.backward()
print(net.fc2.bias.grad)

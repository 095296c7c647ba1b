# after: CS231n PyTorch tutorial, "Part III. PyTorch Module API" and "Part IV. Sequential API" (ThreeLayerConvNet with nn.init.kaiming_normal_ and zeros_, a Flatten module, nn.Sequential with SGD momentum=0.9 nesterov=True, check_accuracy with model.eval() and torch.no_grad)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def flatten(x):
    return x.view(x.shape[0], -1)


class ThreeLayerConvNet(nn.Module):
    def __init__(self, in_channel, channel_1, channel_2, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channel, channel_1, 5, padding=2, bias=True)
        nn.init.kaiming_normal_(self.conv1.weight)
        nn.init.zeros_(self.conv1.bias)
        self.conv2 = nn.Conv2d(channel_1, channel_2, 3, padding=1, bias=True)
        nn.init.kaiming_normal_(self.conv2.weight)
        nn.init.zeros_(self.conv2.bias)
        self.fc = nn.Linear(channel_2 * 8 * 8, num_classes)
        nn.init.kaiming_normal_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(flatten(x))


class Flatten(nn.Module):
    def forward(self, x):
        return flatten(x)


def check_accuracy(x, y, model):
    model.eval()
    with torch.no_grad():
        scores = model(x)
        _, preds = scores.max(1)
        acc = float((preds == y).sum()) / preds.size(0)
    print('Got %.2f%% correct' % (100 * acc))


def train(model, optimizer, batches, epochs=1):
    for e in range(epochs):
        for t, (x, y) in enumerate(batches):
            model.train()
            scores = model(x)
            loss = F.cross_entropy(scores, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print('Iteration %d, loss = %.4f' % (t, loss.item()))


torch.manual_seed(231)
batches = [(torch.randn(8, 3, 8, 8), torch.randint(0, 10, (8,))) for _ in range(3)]
model = ThreeLayerConvNet(in_channel=3, channel_1=6, channel_2=4, num_classes=10)
optimizer = optim.SGD(model.parameters(), lr=3e-3)
train(model, optimizer, batches)
check_accuracy(*batches[0], model)

model = nn.Sequential(
    nn.Conv2d(3, 6, 5, padding=2), nn.ReLU(),
    nn.Conv2d(6, 4, 3, padding=1), nn.ReLU(),
    Flatten(),
    nn.Linear(4 * 8 * 8, 10),
)
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, nesterov=True)
train(model, optimizer, batches, epochs=2)
check_accuracy(*batches[1], model)
print(model[0].weight.grad.abs().sum())

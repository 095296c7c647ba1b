# after: "PyTorch Pocket Reference" (Joe Papa) ch. 3 and 5 (LeNet5 with nn.Conv2d(3, 6, 5), F.max_pool2d(F.relu(self.conv1(x)), (2, 2)), x.view(-1, int(x.nelement() / x.shape[0])), the training loop with for epoch in range(N_EPOCHS) / epoch_loss += loss.item(), a validation pass under torch.no_grad, model.state_dict() keys listed, and the pruning-free quantisation-free parts: torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9) and a StepLR), on 3x32x32 random images)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(17)


class LeNet5(nn.Module):
    def __init__(self):
        super(LeNet5, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


device = "cuda" if torch.cuda.is_available() else "cpu"
model = LeNet5().to(device=device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
scheduler = StepLR(optimizer, step_size=1, gamma=0.5)
print(list(model.state_dict().keys()))

trainset = [(torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))) for _ in range(2)]
valset = [(torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,)))]
N_EPOCHS = 2
for epoch in range(N_EPOCHS):
    train_loss = 0.0
    model.train()
    for inputs, labels in trainset:
        inputs = inputs.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    val_loss = 0.0
    model.eval()
    with torch.no_grad():
        for inputs, labels in valset:
            outputs = model(inputs)
            val_loss += criterion(outputs, labels).item()
    scheduler.step()
    print("Epoch: {} Train Loss: {} Val Loss: {}".format(epoch, train_loss / len(trainset), val_loss / len(valset)))
print(scheduler.get_last_lr())

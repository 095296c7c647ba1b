# after: "Deep Learning with PyTorch" (Stevens, Antiga, Viehmann) ch. 8 "Going deeper": ResBlock with conv + BatchNorm2d, torch.nn.init.kaiming_normal_(self.conv.weight, nonlinearity='relu'), constant_(self.batch_norm.weight, 0.5), zeros_(bias); NetResDeep with self.resblocks = nn.Sequential(*(n_blocks * [ResBlock(n_chans=n_chans1)])) (the same block object repeated), F.max_pool2d(torch.relu(self.conv1(x)), 2), out.view(-1, 4 * 4 * n_chans1); training_loop_l2reg adding l2_lambda * sum(p.pow(2.0).sum() for p in model.parameters()); validate counting correct predictions
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(123)


class ResBlock(nn.Module):
    def __init__(self, n_chans):
        super(ResBlock, self).__init__()
        self.conv = nn.Conv2d(n_chans, n_chans, kernel_size=3, padding=1, bias=False)
        self.batch_norm = nn.BatchNorm2d(num_features=n_chans)
        torch.nn.init.kaiming_normal_(self.conv.weight, nonlinearity="relu")
        torch.nn.init.constant_(self.batch_norm.weight, 0.5)
        torch.nn.init.zeros_(self.batch_norm.bias)

    def forward(self, x):
        out = self.conv(x)
        out = self.batch_norm(out)
        out = torch.relu(out)
        return out + x


class NetResDeep(nn.Module):
    def __init__(self, n_chans1=4, n_blocks=3):
        super().__init__()
        self.n_chans1 = n_chans1
        self.conv1 = nn.Conv2d(3, n_chans1, kernel_size=3, padding=1)
        self.resblocks = nn.Sequential(*(n_blocks * [ResBlock(n_chans=n_chans1)]))
        self.fc1 = nn.Linear(4 * 4 * n_chans1, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        out = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        out = self.resblocks(out)
        out = F.max_pool2d(out, 2)
        out = out.view(-1, 4 * 4 * self.n_chans1)
        out = torch.relu(self.fc1(out))
        out = self.fc2(out)
        return out


def training_loop_l2reg(n_epochs, optimizer, model, loss_fn, train_loader):
    for epoch in range(1, n_epochs + 1):
        loss_train = 0.0
        for imgs, labels in train_loader:
            outputs = model(imgs)
            loss = loss_fn(outputs, labels)
            l2_lambda = 0.001
            l2_norm = sum(p.pow(2.0).sum() for p in model.parameters())
            loss = loss + l2_lambda * l2_norm
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_train += loss.item()
        print("Epoch {}, Training loss {}".format(epoch, loss_train / len(train_loader)))


def validate(model, train_loader, val_loader):
    for name, loader in [("train", train_loader), ("val", val_loader)]:
        correct = 0
        total = 0
        with torch.no_grad():
            for imgs, labels in loader:
                outputs = model(imgs)
                _, predicted = torch.max(outputs, dim=1)
                total += labels.shape[0]
                correct += int((predicted == labels).sum())
        print("Accuracy {}: {:.2f}".format(name, correct / total))


model = NetResDeep()
print(len(list(model.parameters())), sum(p.numel() for p in model.parameters()))
print(model.resblocks[0] is model.resblocks[2])
train_loader = [(torch.randn(4, 3, 16, 16), torch.tensor([0, 1, 1, 0])) for _ in range(2)]
val_loader = [(torch.randn(4, 3, 16, 16), torch.tensor([1, 0, 1, 0]))]
optimizer = optim.SGD(model.parameters(), lr=3e-3)
training_loop_l2reg(2, optimizer, model, nn.CrossEntropyLoss(), train_loader)
model.eval()
validate(model, train_loader, val_loader)
print(model.resblocks[1].batch_norm.running_mean, model.resblocks[0].conv.weight.grad.abs().sum())

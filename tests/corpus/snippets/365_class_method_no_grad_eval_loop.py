# after: Trainer classes in tutorials (@torch.no_grad() on an evaluate method, model.eval()/train(), running_loss += loss.item(), accuracy per epoch)
# expect: match
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
class Trainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.loss_fn = nn.CrossEntropyLoss()
    def train_epoch(self, loader):
        self.model.train()
        running_loss = 0.0
        for xb, yb in loader:
            self.opt.zero_grad()
            loss = self.loss_fn(self.model(xb), yb)
            loss.backward()
            self.opt.step()
            running_loss += loss.item() * xb.size(0)
        return running_loss / len(loader.dataset)
    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = 0
        for xb, yb in loader:
            correct += (self.model(xb).argmax(1) == yb).sum().item()
        return correct / len(loader.dataset)
X = torch.randn(40, 4)
Y = (X[:, 0] > 0).long()
loader = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True)
trainer = Trainer(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2)))
for epoch in range(3):
    print(epoch, trainer.train_epoch(loader), trainer.evaluate(loader))

# after: pytorch/examples vae/main.py (fc1, fc21, fc22, fc3, fc4; reparameterize with std = torch.exp(0.5*logvar) and eps = torch.randn_like(std); loss_function = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum') + KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()); train with train_loss += loss.item(), test under torch.no_grad(), sampling from the prior), at 16 pixels
# expect: match
import torch
import torch.nn.functional as F
from torch import nn, optim

torch.manual_seed(1)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(16, 12)
        self.fc21 = nn.Linear(12, 2)
        self.fc22 = nn.Linear(12, 2)
        self.fc3 = nn.Linear(2, 12)
        self.fc4 = nn.Linear(12, 16)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 16))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


train_loader = [(torch.rand(5, 1, 4, 4), torch.zeros(5)) for _ in range(3)]
test_loader = [(torch.rand(5, 1, 4, 4), torch.zeros(5))]


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        print("Train Epoch: {} [{}/{}]\tLoss: {:.6f}".format(epoch, batch_idx * len(data), 15, loss.item() / len(data)))
    print("====> Epoch: {} Average loss: {:.4f}".format(epoch, train_loss / 15))


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                comparison = torch.cat([data[:2], recon_batch.view(5, 1, 4, 4)[:2]])
    print("====> Test set loss: {:.4f}".format(test_loss / 5))
    return comparison


for epoch in range(1, 3):
    train(epoch)
    comparison = test(epoch)
    with torch.no_grad():
        sample = torch.randn(3, 2)
        sample = model.decode(sample)
print(comparison.shape, sample)

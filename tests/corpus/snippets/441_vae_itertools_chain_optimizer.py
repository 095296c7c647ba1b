# after: VAE / CycleGAN training scripts (one optimizer over two networks with optim.Adam(itertools.chain(encoder.parameters(), decoder.parameters())), the reparameterisation trick written by hand, the closed-form KL term, a learning-rate grid from itertools.product)
# expect: match
import itertools
import torch
import torch.nn as nn
import torch.nn.functional as F

class Encoder(nn.Module):
    def __init__(self, d_in=6, d_z=2):
        super().__init__()
        self.hidden = nn.Linear(d_in, 8)
        self.mu = nn.Linear(8, d_z)
        self.logvar = nn.Linear(8, d_z)

    def forward(self, x):
        h = F.relu(self.hidden(x))
        return self.mu(h), self.logvar(h)

decoder = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 6))
data = torch.randn(16, 6)
for lr, beta in itertools.product([1e-2, 1e-3], [1.0, 0.5]):
    torch.manual_seed(35)
    encoder = Encoder()
    decoder = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 6))
    optimizer = torch.optim.Adam(itertools.chain(encoder.parameters(), decoder.parameters()), lr=lr)
    for epoch in range(2):
        mu, logvar = encoder(data)
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        z = mu + eps * std
        recon = decoder(z)
        recon_loss = F.mse_loss(recon, data, reduction='sum')
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = recon_loss + beta * kld
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"lr={lr} beta={beta}: {loss.item():.4f}")
print(encoder.mu.weight.grad)

# after: beta-VAE / KL-annealing blog posts (a convolutional encoder flattened with nn.Flatten, mu and log_var heads, the decoder with nn.Unflatten and ConvTranspose2d, kl_weight = min(1.0, step / warmup) * beta, the KL averaged per example with torch.mean(torch.sum(..., dim=1), dim=0), F.mse_loss reconstruction)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)


class ConvVAE(nn.Module):
    def __init__(self, latent_dim=3):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten()
        )
        self.fc_mu = nn.Linear(4 * 4 * 4, latent_dim)
        self.fc_var = nn.Linear(4 * 4 * 4, latent_dim)
        self.decoder_input = nn.Linear(latent_dim, 4 * 4 * 4)
        self.decoder = nn.Sequential(
            nn.Unflatten(1, (4, 4, 4)),
            nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1),
        )

    def forward(self, x):
        h = self.encoder(x)
        mu, log_var = self.fc_mu(h), self.fc_var(h)
        std = torch.exp(0.5 * log_var)
        z = mu + std * torch.randn_like(std)
        return self.decoder(self.decoder_input(z)), mu, log_var


model = ConvVAE()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
beta, warmup = 4.0, 4
x = torch.rand(6, 1, 8, 8)
for step in range(6):
    recons, mu, log_var = model(x)
    recons_loss = F.mse_loss(recons, x)
    kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu**2 - log_var.exp(), dim=1), dim=0)
    kl_weight = min(1.0, step / warmup) * beta
    loss = recons_loss + kl_weight * kld_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{step}: loss={loss.item():.5f} recon={recons_loss.item():.5f} kld={kld_loss.item():.5f} w={kl_weight}")
print(recons.shape, mu.shape, model.fc_var.bias.grad)

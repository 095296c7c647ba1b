# after: conditional GAN implementations (PyTorch-GAN cgan.py: self.label_emb = nn.Embedding(n_classes, n_classes), torch.cat((self.label_emb(labels), noise), -1), the discriminator conditioned the same way, an LSGAN-style nn.MSELoss adversarial loss with valid = torch.ones and fake = torch.zeros, requires_grad=False targets)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(7)
n_classes, latent_dim, img_size = 3, 4, 5


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_emb = nn.Embedding(n_classes, n_classes)
        self.model = nn.Sequential(
            nn.Linear(latent_dim + n_classes, 16),
            nn.BatchNorm1d(16, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(16, img_size),
            nn.Tanh(),
        )

    def forward(self, noise, labels):
        gen_input = torch.cat((self.label_emb(labels), noise), -1)
        return self.model(gen_input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_embedding = nn.Embedding(n_classes, n_classes)
        self.model = nn.Sequential(
            nn.Linear(n_classes + img_size, 16),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(0.4),
            nn.Linear(16, 1),
        )

    def forward(self, img, labels):
        d_in = torch.cat((img.view(img.size(0), -1), self.label_embedding(labels)), -1)
        return self.model(d_in)


adversarial_loss = nn.MSELoss()
generator = Generator()
discriminator = Discriminator()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=0.0002, betas=(0.5, 0.999))
for i in range(3):
    imgs = torch.randn(6, img_size)
    labels = torch.randint(0, n_classes, (6,))
    valid = torch.ones(6, 1, requires_grad=False)
    fake = torch.zeros(6, 1, requires_grad=False)

    optimizer_G.zero_grad()
    z = torch.randn(6, latent_dim)
    gen_labels = torch.randint(0, n_classes, (6,))
    gen_imgs = generator(z, gen_labels)
    g_loss = adversarial_loss(discriminator(gen_imgs, gen_labels), valid)
    g_loss.backward()
    optimizer_G.step()

    optimizer_D.zero_grad()
    d_real_loss = adversarial_loss(discriminator(imgs, labels), valid)
    d_fake_loss = adversarial_loss(discriminator(gen_imgs.detach(), gen_labels), fake)
    d_loss = (d_real_loss + d_fake_loss) / 2
    d_loss.backward()
    optimizer_D.step()
    print(i, d_loss.item(), g_loss.item())

generator.eval()
with torch.no_grad():
    print(generator(torch.randn(3, latent_dim), torch.arange(3)))
print(generator.label_emb.weight.grad)

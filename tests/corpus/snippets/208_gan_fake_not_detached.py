# after: PyTorch DCGAN-style loop from a forum question: the discriminator step uses the generator's output without .detach(), then the generator step backpropagates through it again
# expect: explained backward-twice
# mentions: `fake` | fake.detach() | `d_loss` | line 19
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(2, 4), nn.Tanh())
D = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())
bce = nn.BCELoss()
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_D = torch.optim.Adam(D.parameters(), lr=1e-3)

real = torch.randn(8, 4)
noise = torch.randn(8, 2)
fake = G(noise)

opt_D.zero_grad()
d_loss = bce(D(real), torch.ones(8, 1)) + bce(D(fake), torch.zeros(8, 1))
d_loss.backward()
opt_D.step()

opt_G.zero_grad()
g_loss = bce(D(fake), torch.ones(8, 1))
g_loss.backward()
opt_G.step()

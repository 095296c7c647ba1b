# after: PyTorch forum DCGAN questions "Trying to backward through the graph a second time" (the generator's output reused for the generator step after the discriminator's backward)
# expect: explained backward-twice
# mentions: fake
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 3))
D = nn.Sequential(nn.Linear(3, 4), nn.LeakyReLU(0.2), nn.Linear(4, 1))
criterion = nn.BCEWithLogitsLoss()
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)

real = torch.randn(8, 3)
z = torch.randn(8, 2)
fake = G(z)

opt_d.zero_grad()
d_loss = criterion(D(real), torch.ones(8, 1)) + criterion(D(fake), torch.zeros(8, 1))
d_loss.backward()
opt_d.step()

opt_g.zero_grad()
g_loss = criterion(D(fake), torch.ones(8, 1))
g_loss.backward()
opt_g.step()

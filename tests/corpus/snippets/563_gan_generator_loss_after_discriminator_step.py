# after: PyTorch forum "one of the variables needed for gradient computation has been modified by an inplace operation" in a GAN (one discriminator output on the fake batch reused for the generator's loss after optimizerD.step() has updated the discriminator's weights in place)
# expect: explained saved-tensor-modified
# mentions: optimizerD.step() | d_fake = netD(fake) | optimizerG.step()
import torch
import torch.nn as nn

torch.manual_seed(20)
netG = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4))
netD = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
real = torch.randn(6, 4)
noise = torch.randn(6, 3)
ones, zeros = torch.ones(6, 1), torch.zeros(6, 1)

fake = netG(noise)
d_fake = netD(fake)
errD = criterion(netD(real), ones) + criterion(d_fake, zeros)
optimizerD.zero_grad()
errD.backward(retain_graph=True)
optimizerD.step()

errG = criterion(d_fake, ones)
optimizerG.zero_grad()
errG.backward()
optimizerG.step()

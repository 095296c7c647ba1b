# after: PyTorch forum "Found dtype Long but expected Float" in a DCGAN loop (label = torch.full((b_size,), real_label) with real_label = 1 written as a whole number, so the labels are int64 for nn.BCELoss)
# expect: explained dtype-mismatch
# mentions: label
import torch
import torch.nn as nn

torch.manual_seed(8)
netD = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
real_label = 1
fake_label = 0
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
real = torch.randn(4, 6)
b_size = real.size(0)
netD.zero_grad()
label = torch.full((b_size,), real_label)
output = netD(real).view(-1)
errD_real = criterion(output, label)
errD_real.backward()

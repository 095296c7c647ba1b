# after: CycleGAN / pix2pix (junyanz) base_model.set_requires_grad(nets, requires_grad) (the discriminator's parameters switched off with p.requires_grad = False while the generator is updated, then back on for its own step; GANLoss with register_buffer'd real and fake labels expanded with expand_as)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(9)


class GANLoss(nn.Module):
    def __init__(self, target_real_label=1.0, target_fake_label=0.0):
        super().__init__()
        self.register_buffer("real_label", torch.tensor(target_real_label))
        self.register_buffer("fake_label", torch.tensor(target_fake_label))
        self.loss = nn.MSELoss()

    def get_target_tensor(self, prediction, target_is_real):
        target_tensor = self.real_label if target_is_real else self.fake_label
        return target_tensor.expand_as(prediction)

    def __call__(self, prediction, target_is_real):
        return self.loss(prediction, self.get_target_tensor(prediction, target_is_real))


def set_requires_grad(nets, requires_grad=False):
    if not isinstance(nets, list):
        nets = [nets]
    for net in nets:
        if net is not None:
            for param in net.parameters():
                param.requires_grad = requires_grad


netG = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 5), nn.Tanh())
netD = nn.Sequential(nn.Linear(10, 8), nn.LeakyReLU(0.2, True), nn.Linear(8, 1))
criterionGAN = GANLoss()
criterionL1 = nn.L1Loss()
optimizer_G = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
lambda_L1 = 100.0
for step in range(3):
    real_A, real_B = torch.randn(4, 5), torch.randn(4, 5)
    fake_B = netG(real_A)
    set_requires_grad(netD, True)
    optimizer_D.zero_grad()
    pred_fake = netD(torch.cat((real_A, fake_B), 1).detach())
    loss_D_fake = criterionGAN(pred_fake, False)
    pred_real = netD(torch.cat((real_A, real_B), 1))
    loss_D_real = criterionGAN(pred_real, True)
    loss_D = (loss_D_fake + loss_D_real) * 0.5
    loss_D.backward()
    optimizer_D.step()

    set_requires_grad(netD, False)
    optimizer_G.zero_grad()
    pred_fake = netD(torch.cat((real_A, fake_B), 1))
    loss_G_GAN = criterionGAN(pred_fake, True)
    loss_G_L1 = criterionL1(fake_B, real_B) * lambda_L1
    loss_G = loss_G_GAN + loss_G_L1
    loss_G.backward()
    optimizer_G.step()
    print(step, loss_D.item(), loss_G_GAN.item(), loss_G_L1.item())
print([p.requires_grad for p in netD.parameters()], netD[0].weight.grad.abs().sum())

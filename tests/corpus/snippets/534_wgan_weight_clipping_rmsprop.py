# after: the original WGAN code (n_critic critic steps per generator step, RMSprop lr=5e-5, weights clipped with p.data.clamp_(-clip_value, clip_value) after each critic step, loss_D = -torch.mean(D(real)) + torch.mean(D(fake)), loss_G = -torch.mean(D(gen)), a Variable-free PyTorch-GAN implementation)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(6)
latent_dim, img_dim = 3, 6
generator = nn.Sequential(nn.Linear(latent_dim, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, img_dim), nn.Tanh())
discriminator = nn.Sequential(nn.Linear(img_dim, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=5e-5)
n_critic, clip_value = 3, 0.01
batches_done = 0
for i in range(6):
    real_imgs = torch.rand(8, img_dim) * 2 - 1
    optimizer_D.zero_grad()
    z = torch.randn(real_imgs.shape[0], latent_dim)
    fake_imgs = generator(z).detach()
    loss_D = -torch.mean(discriminator(real_imgs)) + torch.mean(discriminator(fake_imgs))
    loss_D.backward()
    optimizer_D.step()
    for p in discriminator.parameters():
        p.data.clamp_(-clip_value, clip_value)
    if i % n_critic == 0:
        optimizer_G.zero_grad()
        gen_imgs = generator(z)
        loss_G = -torch.mean(discriminator(gen_imgs))
        loss_G.backward()
        optimizer_G.step()
        print("[Batch %d] [D loss: %f] [G loss: %f]" % (i, loss_D.item(), loss_G.item()))
    batches_done += 1
print(max(p.abs().max().item() for p in discriminator.parameters()))
print(discriminator[0].weight.grad.abs().sum())

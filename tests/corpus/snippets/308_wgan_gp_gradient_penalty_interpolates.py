# after: WGAN-GP implementations (compute_gradient_penalty: random interpolates, autograd.grad with create_graph/retain_graph/only_inputs, lambda 10)
# expect: match
import torch
import torch.nn as nn
from torch import autograd

torch.manual_seed(0)
D = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer_D = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.5, 0.9))

def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1)
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1, requires_grad=False)
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=fake,
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
    return gradient_penalty

lambda_gp = 10
for i in range(3):
    real_imgs = torch.randn(8, 4)
    z = torch.randn(8, 2)
    fake_imgs = G(z)
    optimizer_D.zero_grad()
    real_validity = D(real_imgs)
    fake_validity = D(fake_imgs.detach())
    gradient_penalty = compute_gradient_penalty(D, real_imgs.data, fake_imgs.data)
    d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty
    d_loss.backward()
    optimizer_D.step()
    print(i, d_loss.item(), gradient_penalty.item())

# after: DDPM sampling loops (@torch.no_grad() p_sample with model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t), posterior_variance = betas * (1. - alphas_cumprod_prev) / (1. - alphas_cumprod) from F.pad(alphas_cumprod[:-1], (1, 0), value=1.0), noise added unless t_index == 0, p_sample_loop over reversed(range(0, timesteps)) collecting imgs)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
timesteps = 20
betas = torch.linspace(1e-4, 0.05, timesteps)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, axis=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_recip_alphas = torch.sqrt(1.0 / alphas)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - alphas_cumprod)
posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)


def extract(a, t, x_shape):
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, (t.float() / timesteps)[:, None]], dim=1))


@torch.no_grad()
def p_sample(model, x, t, t_index):
    betas_t = extract(betas, t, x.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus_alphas_cumprod, t, x.shape)
    sqrt_recip_alphas_t = extract(sqrt_recip_alphas, t, x.shape)
    model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t)
    if t_index == 0:
        return model_mean
    posterior_variance_t = extract(posterior_variance, t, x.shape)
    noise = torch.randn_like(x)
    return model_mean + torch.sqrt(posterior_variance_t) * noise


@torch.no_grad()
def p_sample_loop(model, shape):
    b = shape[0]
    img = torch.randn(shape)
    imgs = []
    for i in reversed(range(0, timesteps)):
        img = p_sample(model, img, torch.full((b,), i, dtype=torch.long), i)
        imgs.append(img.cpu().numpy())
    return imgs


model = TinyNet()
samples = p_sample_loop(model, shape=(5, 2))
final = torch.from_numpy(samples[-1])
print(len(samples), final.shape, final.requires_grad)
print(final)
print(posterior_variance[:4])

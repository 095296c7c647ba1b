# after: PyTorch forum "Expected parameter scale ... to satisfy the constraint GreaterThan(lower_bound=0.0)" in a VAE (the encoder's log-variance passed to Normal as the standard deviation: q = Normal(mu, logvar))
# expect: explained distribution-argument
# mentions: Normal(mu, logvar) | torch.exp(0.5 * logvar)
import torch
import torch.nn as nn
from torch.distributions import Normal

torch.manual_seed(3)
encoder = nn.Linear(6, 4)
x = torch.randn(5, 6)
h = encoder(x)
mu, logvar = h[:, :2], h[:, 2:]
q = Normal(mu, logvar)
z = q.rsample()
print(z.shape)

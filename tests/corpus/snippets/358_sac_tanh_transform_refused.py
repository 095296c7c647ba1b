# after: SAC implementations (TransformedDistribution(Normal(mu, std), [TanhTransform(cache_size=1)]) for squashed Gaussian actions)
# expect: refused
# mentions: torch.distributions.transforms
import torch
import torch.nn as nn
from torch.distributions import Normal, TransformedDistribution
from torch.distributions.transforms import TanhTransform

net = nn.Linear(3, 4)
mu, log_std = net(torch.randn(5, 3)).chunk(2, dim=-1)
dist = TransformedDistribution(Normal(mu, log_std.exp()), [TanhTransform(cache_size=1)])
action = dist.rsample()
print(dist.log_prob(action).sum(-1))

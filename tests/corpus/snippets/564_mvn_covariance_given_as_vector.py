# after: Stack Overflow "covariance_matrix must be at least two-dimensional" (a Gaussian policy or VAE prior made with MultivariateNormal(mu, sigma) where sigma is a vector of variances, not a matrix)
# expect: explained distribution-argument
# mentions: sigma | torch.diag_embed(sigma)
import torch
from torch.distributions import MultivariateNormal

torch.manual_seed(21)
mu = torch.zeros(3)
sigma = torch.ones(3) * 0.5
policy = MultivariateNormal(mu, sigma)
action = policy.sample()
print(action, policy.log_prob(action))

# after: SAC implementations (Normal rsample, tanh squashing, the log-prob correction log(1 - tanh(x)^2 + eps) written by hand)
# expect: match
import torch
import torch.nn as nn
from torch.distributions import Normal

torch.manual_seed(0)
net = nn.Linear(3, 4)
obs = torch.randn(5, 3)
mu, log_std = net(obs).chunk(2, dim=-1)
std = log_std.clamp(-5, 2).exp()
normal = Normal(mu, std)
x_t = normal.rsample()
action = torch.tanh(x_t)
log_prob = normal.log_prob(x_t) - torch.log(1 - action.pow(2) + 1e-6)
log_prob = log_prob.sum(-1, keepdim=True)
alpha = 0.2
q = (action ** 2).sum(-1, keepdim=True)
actor_loss = (alpha * log_prob - q).mean()
actor_loss.backward()
print(action, log_prob.squeeze())
print(net.weight.grad)

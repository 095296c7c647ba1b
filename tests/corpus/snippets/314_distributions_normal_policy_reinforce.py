# after: Gaussian-policy REINFORCE / actor-critic examples (Normal(mu, sigma) with a learned log_std, sample(), log_prob(action).sum(-1), advantage-weighted loss, entropy bonus)
# expect: match
import torch
import torch.nn as nn
from torch.distributions import Normal

torch.manual_seed(0)

class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
        self.log_std = nn.Parameter(torch.zeros(2))

    def forward(self, obs):
        return Normal(self.mu(obs), self.log_std.exp())

policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
obs = torch.randn(6, 3)
dist = policy(obs)
actions = dist.sample()
log_probs = dist.log_prob(actions).sum(-1)
advantages = torch.randn(6)
loss = -(log_probs * advantages).mean() - 0.01 * dist.entropy().sum(-1).mean()
optimizer.zero_grad()
loss.backward()
print(loss.item())
print(policy.log_std.grad)
optimizer.step()
print(policy.log_std)

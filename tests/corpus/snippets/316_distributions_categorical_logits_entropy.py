# after: actor-critic / PPO examples (Categorical(logits=...), sample, log_prob, entropy, ratio of new and old log-probs with clamp)
# expect: match
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 3))
states = torch.randn(8, 4)
with torch.no_grad():
    old_dist = Categorical(logits=actor(states))
    actions = old_dist.sample()
    old_log_probs = old_dist.log_prob(actions)

advantages = torch.randn(8)
dist = Categorical(logits=actor(states))
new_log_probs = dist.log_prob(actions)
ratio = (new_log_probs - old_log_probs).exp()
surr1 = ratio * advantages
surr2 = torch.clamp(ratio, 0.8, 1.2) * advantages
loss = -torch.min(surr1, surr2).mean() - 0.01 * dist.entropy().mean()
loss.backward()
print(actions)
print(loss.item(), actor[0].weight.grad.abs().sum().item())
print(dist.probs[0], dist.probs[0].sum())

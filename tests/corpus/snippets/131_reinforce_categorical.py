# after: pytorch/examples reinforcement_learning/reinforce.py (Categorical(probs).sample(), log_prob, policy-gradient loss) and Bernoulli policies
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
policy = nn.Linear(4, 2)
states = torch.randn(5, 4)
log_probs = []
for s in states:
    probs = F.softmax(policy(s), dim=-1)
    m = torch.distributions.Categorical(probs)
    action = m.sample()
    log_probs.append(m.log_prob(action))
returns = torch.tensor([1.0, 0.5, 0.25, 0.125, 0.0625])
policy_loss = (-torch.stack(log_probs) * returns).sum()
b = torch.distributions.Bernoulli(logits=policy(states)[:, 0])
flips = b.sample()
entropy = torch.distributions.Categorical(logits=policy(states)).entropy().mean()
loss = policy_loss - 0.01 * entropy + b.log_prob(flips).mean()
print(flips, action)

# after: first REINFORCE attempts that build the loss from the sampled action itself (loss = -(action.float() * reward).mean()) instead of from m.log_prob(action): a sample carries no gradient, so loss.backward() says "element 0 of tensors does not require grad"
# expect: explained no-grad-to-compute
# mentions: action | log_prob
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(6)
policy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2), nn.Softmax(dim=-1))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
state = torch.randn(6, 4)
probs = policy(state)
m = Categorical(probs)
action = m.sample()
reward = torch.randn(6)
loss = -(action.float() * reward).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()

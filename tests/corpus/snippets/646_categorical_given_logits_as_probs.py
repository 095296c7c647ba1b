# after: policy-gradient code that passes the policy network's raw scores to Categorical positionally (Categorical(logits_from_net), which means probs=), so negative scores fail the Simplex constraint: "Expected parameter probs ... to satisfy the constraint Simplex()"
# expect: explained distribution-argument
# mentions: action_scores | Categorical(logits=action_scores)
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
state = torch.randn(3, 4)
action_scores = policy(state)
m = Categorical(action_scores)
action = m.sample()
loss = -m.log_prob(action).sum()
loss.backward()

# after: actor-critic code whose replay buffer stores actions one-hot (F.one_hot(actions, n_actions), as a DQN-style buffer does) and hands them to dist.log_prob of a Categorical over a batch of states: "Value is not broadcastable with batch_shape+event_shape: torch.Size([5, 3]) vs torch.Size([5])"
# expect: explained distribution-argument
# mentions: actions | argmax(-1)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(4)
actor = nn.Linear(4, 3)
states = torch.randn(5, 4)
actions = F.one_hot(torch.tensor([0, 2, 1, 1, 0]), num_classes=3)
advantages = torch.randn(5)
dist = Categorical(logits=actor(states))
log_probs = dist.log_prob(actions)
actor_loss = -(log_probs * advantages).mean()
actor_loss.backward()

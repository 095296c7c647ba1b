# after: PyTorch forum "modified by an inplace operation ... is at version 2" (an actor-critic update: optimizer.step() for the first loss before backward of the second)
# expect: explained saved-tensor-modified
# mentions: optimizer.step() | line 18 | line 19 | (actor_loss + critic_loss).backward()
import torch
import torch.nn as nn

policy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
value_head = nn.Linear(2, 1)
optimizer = torch.optim.SGD(list(policy.parameters()) + list(value_head.parameters()), lr=0.1)
obs = torch.randn(3, 4)

features = policy(obs)
actor_loss = -features.log_softmax(dim=1)[:, 0].mean()
critic_loss = value_head(features).pow(2).mean()

optimizer.zero_grad()
actor_loss.backward(retain_graph=True)
optimizer.step()
critic_loss.backward()

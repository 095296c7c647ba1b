# after: REINFORCE examples on the PyTorch forum (actions sampled one step at a time, kept as a list of tensors, then probs[range(n), actions] and probs[[steps, actions]])
# expect: match
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2), nn.Softmax(dim=-1))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)

states = torch.randn(5, 4)
probs = policy(states)
actions = [Categorical(p).sample() for p in probs]
rewards = [1.0, 0.0, 1.0, 1.0, 0.0]
returns = []
R = 0.0
for r in reversed(rewards):
    R = r + 0.99 * R
    returns.insert(0, R)
returns = torch.tensor(returns)
returns = (returns - returns.mean()) / (returns.std() + 1e-8)

chosen = probs[range(len(actions)), actions]
same = probs[[list(range(len(actions))), actions]]
print(torch.equal(chosen, same))
loss = -(torch.log(chosen) * returns).sum()
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(loss.item(), [a.item() for a in actions])

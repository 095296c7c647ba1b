# after: DQN forum questions "Index tensor must have the same number of dimensions as input tensor" (actions kept as a 1-D tensor of ids, then q_values.gather(1, actions) on the (batch, n_actions) Q-values)
# expect: explained gather-index
# mentions: actions | unsqueeze(1)
import torch
import torch.nn as nn

torch.manual_seed(0)
q_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
states = torch.randn(6, 4)
actions = torch.tensor([0, 2, 1, 1, 0, 2])
targets = torch.randn(6)
q_values = q_net(states)
chosen = q_values.gather(1, actions)
loss = nn.functional.mse_loss(chosen.squeeze(1), targets)
loss.backward()

# after: PyTorch tutorial "Reinforcement Learning (DQN)" style target network, copied with copy.deepcopy and soft-updated
# expect: match
import copy

import torch
import torch.nn as nn


class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 16), nn.Tanh())
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.body(x))


torch.manual_seed(1)
policy_net = QNet()
target_net = copy.deepcopy(policy_net)
for p in target_net.parameters():
    p.requires_grad_(False)

state = torch.randn(5, 3)
q = policy_net(state)
with torch.no_grad():
    target = target_net(state).max(1).values
loss = nn.functional.smooth_l1_loss(q.max(1).values, target + 0.5)
loss.backward()

tau = 0.1
target_state = target_net.state_dict()
policy_state = policy_net.state_dict()
for key in policy_state:
    target_state[key] = policy_state[key] * tau + target_state[key] * (1 - tau)
target_net.load_state_dict(target_state)
print(target_net.head.weight.requires_grad, policy_net.head.weight.grad.shape)
w_copy = target_net.head.weight

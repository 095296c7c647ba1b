# after: pytorch/examples reinforcement_learning/actor_critic.py (a Policy with a shared affine1 and two heads action_head and value_head, SavedAction = namedtuple('SavedAction', ['log_prob', 'value']), select_action with Categorical(probs) saving m.log_prob(action) and the value, finish_episode computing discounted returns R = r + gamma * R inserted at the front, returns normalised with (returns - mean) / (std + eps), advantage = R - value.item(), policy_losses and value_losses with F.smooth_l1_loss, torch.stack(...).sum() + torch.stack(...).sum(), del model.rewards[:]) on a made-up environment)
# expect: match
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(7)
SavedAction = namedtuple("SavedAction", ["log_prob", "value"])
gamma = 0.99
eps = np.finfo(np.float32).eps.item()


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 32)
        self.action_head = nn.Linear(32, 2)
        self.value_head = nn.Linear(32, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


model = Policy()
optimizer = optim.Adam(model.parameters(), lr=3e-2)


def select_action(state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(state)
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode():
    R = 0
    saved_actions = model.saved_actions
    policy_losses, value_losses, returns = [], [], []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]
    return loss.item()


rng = np.random.RandomState(0)
for episode in range(3):
    state = rng.randn(4)
    for t in range(6):
        action = select_action(state)
        state = state + 0.1 * (action - 0.5) + 0.05 * rng.randn(4)
        model.rewards.append(float(1.0 - abs(state[0])))
    print(episode, round(finish_episode(), 6))

# after: the PyTorch tutorial "Reinforcement Learning (DQN)" (Transition = namedtuple(...), ReplayMemory on a deque(maxlen) with random.sample, a 3-layer DQN MLP, epsilon-greedy select_action with policy_net(state).max(1).indices.view(1, 1) under torch.no_grad, optimize_model with torch.cat of the batch, non_final_mask from map(lambda s: s is not None, ...), state_action_values = policy_net(state_batch).gather(1, action_batch), target_net(...).max(1).values under no_grad, nn.SmoothL1Loss, torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100), AdamW(amsgrad=True), the soft update of target_net's state_dict with TAU), on a made-up environment of random tensors)
# expect: match
import math
import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.optim as optim

random.seed(0)
torch.manual_seed(0)
Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))


class ReplayMemory(object):
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 16)
        self.layer2 = nn.Linear(16, 16)
        self.layer3 = nn.Linear(16, n_actions)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.layer3(x)


BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 8, 0.99, 0.9, 0.05, 100, 0.005, 1e-4
n_actions, n_observations = 2, 4
policy_net = DQN(n_observations, n_actions)
target_net = DQN(n_observations, n_actions)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(100)
steps_done = 0


def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1.0 * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    else:
        return torch.tensor([[random.randrange(n_actions)]], dtype=torch.long)


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return None
    transitions = memory.sample(BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(
        tuple(map(lambda s: s is not None, batch.next_state)), dtype=torch.bool
    )
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item()


state = torch.randn(1, n_observations)
for t in range(20):
    action = select_action(state)
    reward = torch.tensor([float(action.item() == 1)])
    terminated = t % 7 == 6
    next_state = None if terminated else torch.randn(1, n_observations)
    memory.push(state, action, next_state, reward)
    state = next_state if next_state is not None else torch.randn(1, n_observations)
    loss = optimize_model()
    target_net_state_dict = target_net.state_dict()
    policy_net_state_dict = policy_net.state_dict()
    for key in policy_net_state_dict:
        target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[
            key
        ] * (1 - TAU)
    target_net.load_state_dict(target_net_state_dict)
    if loss is not None and t % 5 == 0:
        print(t, loss)
print(target_net.layer3.bias)

# after: DQN forum questions "gather(): Expected dtype int64 for index" (the replay batch's actions stored as floats, as the environment returns them, then policy_net(state_batch).gather(1, action_batch))
# expect: explained gather-index
# mentions: action_batch | long
import torch
import torch.nn as nn

torch.manual_seed(0)
policy_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
state_batch = torch.randn(8, 4)
action_batch = torch.tensor([[0.0], [1.0], [1.0], [0.0], [1.0], [0.0], [0.0], [1.0]])
reward_batch = torch.randn(8)
state_action_values = policy_net(state_batch).gather(1, action_batch)
loss = nn.functional.smooth_l1_loss(state_action_values, reward_batch.unsqueeze(1))
loss.backward()

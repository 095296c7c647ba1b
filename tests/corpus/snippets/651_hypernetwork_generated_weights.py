# after: "HyperNetworks" (Ha, Dai & Le) explainer posts and hypernetwork-for-INR notebooks (a task embedding z as nn.Parameter per task, a HyperNetwork nn.Module whose heads output the flattened weights and biases of a small target MLP, w1 = self.w1_head(z).view(hidden, in_dim), the target net run functionally with F.linear(x, w1, b1) and torch.relu, MSE on sine tasks of different phases, Adam over the hypernetwork and the embeddings together, gradients reaching z through the generated weights)
# expect: match
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(27)


class HyperNetwork(nn.Module):
    def __init__(self, z_dim, in_dim, hidden, out_dim):
        super().__init__()
        self.in_dim, self.hidden, self.out_dim = in_dim, hidden, out_dim
        self.body = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU())
        self.w1_head = nn.Linear(32, hidden * in_dim)
        self.b1_head = nn.Linear(32, hidden)
        self.w2_head = nn.Linear(32, out_dim * hidden)
        self.b2_head = nn.Linear(32, out_dim)

    def forward(self, z):
        h = self.body(z)
        w1 = self.w1_head(h).view(self.hidden, self.in_dim)
        b1 = self.b1_head(h)
        w2 = self.w2_head(h).view(self.out_dim, self.hidden)
        b2 = self.b2_head(h)
        return w1, b1, w2, b2


def target_net(x, params):
    w1, b1, w2, b2 = params
    return F.linear(torch.relu(F.linear(x, w1, b1)), w2, b2)


num_tasks = 3
hyper = HyperNetwork(z_dim=4, in_dim=1, hidden=8, out_dim=1)
task_embeddings = nn.Parameter(torch.randn(num_tasks, 4) * 0.1)
optimizer = torch.optim.Adam(list(hyper.parameters()) + [task_embeddings], lr=1e-2)
x = torch.linspace(-math.pi, math.pi, 16).unsqueeze(1)
phases = torch.tensor([0.0, 1.0, 2.0])
for step in range(5):
    optimizer.zero_grad()
    total = 0.0
    for task in range(num_tasks):
        params = hyper(task_embeddings[task])
        y = torch.sin(x + phases[task])
        total = total + F.mse_loss(target_net(x, params), y)
    total.backward()
    optimizer.step()
    print(step, f"{total.item():.5f}")
print(task_embeddings.grad, [p.shape for p in hyper(task_embeddings[0])])

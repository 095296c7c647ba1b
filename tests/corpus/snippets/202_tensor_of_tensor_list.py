# after: PyTorch forum "my total loss has no grad_fn" (per-task losses summed, then wrapped in torch.tensor to get a tensor)
# expect: explained no-grad-to-compute
# mentions: `total_loss` | line 15 | sum(losses)
import torch
import torch.nn as nn

net = nn.Linear(3, 1)
tasks = [torch.randn(5, 3) for _ in range(3)]
goals = [torch.randn(5, 1) for _ in range(3)]

losses = []
for task_x, task_y in zip(tasks, goals):
    losses.append(nn.functional.mse_loss(net(task_x), task_y))

total_loss = torch.tensor(sum(losses))
print(total_loss)
total_loss.backward()

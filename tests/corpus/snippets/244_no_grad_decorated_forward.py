# after: a notebook that reused its @torch.no_grad() prediction helper inside the training step
# expect: explained no-grad-to-compute
# mentions: `predict` | @torch.no_grad() | line 10 | line 17
import torch
import torch.nn as nn

net = nn.Linear(3, 2)


@torch.no_grad()
def predict(batch):
    return net(batch)


inputs = torch.randn(4, 3)
labels = torch.tensor([0, 1, 1, 0])
loss = nn.functional.cross_entropy(predict(inputs), labels)
loss.backward()

# after: tutorials that print everything they make (print(model), print(optimizer), a distribution, a scheduler's state_dict, type() of each, grad_fn names)
# expect: match
import torch
import torch.nn as nn
from torch.distributions import Normal, Categorical
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Dropout(0.1), nn.Linear(3, 1))
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
print(optimizer)
sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.1)
print(sched.get_last_lr(), sched.last_epoch)
print(type(optimizer), type(sched).__name__, type(model[0]))
d = Normal(torch.zeros(2), torch.ones(2))
print(d, Categorical(logits=torch.zeros(3)))
print(d.mean, d.stddev, d.batch_shape, d.event_shape)
out = model(torch.ones(1, 2))
print(out.grad_fn, out.grad_fn.name(), type(out.grad_fn).__name__)
print(model.state_dict().keys())
print(list(optimizer.state_dict()["param_groups"][0].keys()))
print(nn.functional.relu, torch.sigmoid, torch.optim.SGD)
print(repr(torch.tensor([1.5, 2.0], requires_grad=True)), torch.float32, torch.Size([2, 3]))

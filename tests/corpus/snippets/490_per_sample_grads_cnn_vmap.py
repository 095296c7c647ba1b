# after: PyTorch tutorial "Per-sample-gradients" (a small CNN with conv, max_pool2d, dropout off, log_softmax and F.nll_loss; params and buffers detached into dicts; ft_compute_grad = grad(compute_loss); vmap(ft_compute_grad, in_dims=(None, None, 0, 0)); compared with a loop of per-sample backward calls)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)


class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.fc1 = nn.Linear(4 * 3 * 3, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc1(x), dim=1)


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


model = SimpleCNN()
data = torch.randn(8, 1, 8, 8)
targets = torch.randint(10, (8,))


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = loss_fn(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


per_sample_grads = [compute_grad(data[i], targets[i]) for i in range(8)]
per_sample_grads = zip(*per_sample_grads)
per_sample_grads = [torch.stack(shards) for shards in per_sample_grads]

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return loss_fn(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    print(per_sample_grad.shape, torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5))
print(ft_per_sample_grads['fc1.bias'][0])

# after: MAML-from-scratch blog posts on sine-wave regression (the network written as a function of a params list with F.linear, fast_weights = [w - alpha * g for w, g in zip(weights, grads)] from torch.autograd.grad(..., create_graph=True), several inner steps, a meta-batch of tasks, meta_loss / meta_batch_size)
# expect: match
import math

import torch
import torch.nn.functional as F

torch.manual_seed(11)


def init_weights():
    weights = [
        torch.randn(20, 1) * math.sqrt(2.0),
        torch.zeros(20),
        torch.randn(1, 20) * math.sqrt(2.0 / 20),
        torch.zeros(1),
    ]
    return [w.requires_grad_() for w in weights]


def net(x, weights):
    x = F.relu(F.linear(x, weights[0], weights[1]))
    return F.linear(x, weights[2], weights[3])


def sample_task():
    amplitude = torch.rand(1) * 4.9 + 0.1
    phase = torch.rand(1) * math.pi

    def sample(k):
        x = torch.rand(k, 1) * 10 - 5
        return x, amplitude * torch.sin(x + phase)

    return sample


weights = init_weights()
meta_optimizer = torch.optim.Adam(weights, lr=1e-3)
alpha, inner_steps, meta_batch_size, K = 0.01, 2, 3, 5
for it in range(3):
    meta_loss = 0
    for _ in range(meta_batch_size):
        task = sample_task()
        x_s, y_s = task(K)
        fast_weights = weights
        for _ in range(inner_steps):
            loss = F.mse_loss(net(x_s, fast_weights), y_s)
            grads = torch.autograd.grad(loss, fast_weights, create_graph=True)
            fast_weights = [w - alpha * g for w, g in zip(fast_weights, grads)]
        x_q, y_q = task(K)
        meta_loss = meta_loss + F.mse_loss(net(x_q, fast_weights), y_q)
    meta_loss = meta_loss / meta_batch_size
    meta_optimizer.zero_grad()
    meta_loss.backward()
    meta_optimizer.step()
    print(f"iter {it}: meta loss {meta_loss.item():.4f}")
print([w.grad.norm().item() for w in weights])

# after: OpenAI's Reptile sine-wave demo in PyTorch (weights_before = deepcopy(model.state_dict()), a few plain SGD steps on one task with param.data -= innerstepsize * param.grad.data, then model.load_state_dict({name: weights_before[name] + (weights_after[name] - weights_before[name]) * outerstepsize ...}), outerstepsize annealed linearly)
# expect: match
from copy import deepcopy

import numpy as np
import torch
import torch.nn as nn

seed = 0
rng = np.random.RandomState(seed)
torch.manual_seed(seed)
innerstepsize, innerepochs, outerstepsize0, niterations, ntrain = 0.02, 1, 0.1, 4, 10
x_all = np.linspace(-5, 5, 12)[:, None]


def gen_task():
    phase = rng.uniform(low=0, high=2 * np.pi)
    ampl = rng.uniform(0.1, 5)
    return lambda x: np.sin(x + phase) * ampl


model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))


def totorch(x):
    return torch.tensor(x, dtype=torch.float32)


def train_on_batch(x, y):
    x = totorch(x)
    y = totorch(y)
    model.zero_grad()
    ypred = model(x)
    loss = (ypred - y).pow(2).mean()
    loss.backward()
    for param in model.parameters():
        param.data -= innerstepsize * param.grad.data
    return loss.item()


def predict(x):
    x = totorch(x)
    return model(x).data.numpy()


for iteration in range(niterations):
    weights_before = deepcopy(model.state_dict())
    f = gen_task()
    y_all = f(x_all)
    inds = rng.permutation(len(x_all))
    for _ in range(innerepochs):
        for start in range(0, len(x_all), ntrain // 2):
            mbinds = inds[start : start + ntrain // 2]
            last = train_on_batch(x_all[mbinds], y_all[mbinds])
    weights_after = model.state_dict()
    outerstepsize = outerstepsize0 * (1 - iteration / niterations)
    model.load_state_dict(
        {
            name: weights_before[name] + (weights_after[name] - weights_before[name]) * outerstepsize
            for name in weights_before
        }
    )
    print(iteration, round(last, 5), outerstepsize)
print(predict(x_all[:3]).ravel())
print(model[0].weight[:3, 0])

# after: "Adam from scratch" posts (m = beta1 * m + (1 - beta1) * g, v = beta2 * v + (1 - beta2) * g ** 2, m_hat = m / (1 - beta1 ** t), v_hat = v / (1 - beta2 ** t), p -= lr * m_hat / (v_hat.sqrt() + eps) under torch.no_grad, a class MyAdam with state kept in lists of torch.zeros_like, then compared against torch.optim.Adam on a copy of the same model; and momentum SGD written by hand vs torch.optim.SGD(momentum=0.9))
# expect: match
import copy

import torch
import torch.nn as nn


class MyAdam:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.params = list(params)
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad
            self.m[i] = self.beta1 * self.m[i] + (1 - self.beta1) * g
            self.v[i] = self.beta2 * self.v[i] + (1 - self.beta2) * g**2
            m_hat = self.m[i] / (1 - self.beta1**self.t)
            v_hat = self.v[i] / (1 - self.beta2**self.t)
            p -= self.lr * m_hat / (v_hat.sqrt() + self.eps)

    def zero_grad(self):
        for p in self.params:
            p.grad = None


class MySGD:
    def __init__(self, params, lr, momentum):
        self.params = list(params)
        self.lr, self.momentum = lr, momentum
        self.buf = [None for _ in self.params]

    def step(self):
        with torch.no_grad():
            for i, p in enumerate(self.params):
                d_p = p.grad
                if self.buf[i] is None:
                    self.buf[i] = torch.clone(d_p).detach()
                else:
                    self.buf[i].mul_(self.momentum).add_(d_p)
                p.add_(self.buf[i], alpha=-self.lr)

    def zero_grad(self):
        for p in self.params:
            if p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()


torch.manual_seed(22)
model_a = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
model_b = copy.deepcopy(model_a)
model_c = copy.deepcopy(model_a)
model_d = copy.deepcopy(model_a)
pairs = [
    (model_a, MyAdam(model_a.parameters(), lr=0.01)),
    (model_b, torch.optim.Adam(model_b.parameters(), lr=0.01)),
    (model_c, MySGD(model_c.parameters(), lr=0.05, momentum=0.9)),
    (model_d, torch.optim.SGD(model_d.parameters(), lr=0.05, momentum=0.9)),
]
X, y = torch.randn(16, 3), torch.randn(16, 1)
for step in range(5):
    for model, opt in pairs:
        opt.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        loss.backward()
        opt.step()
for (m1, _), (m2, _) in [(pairs[0], pairs[1]), (pairs[2], pairs[3])]:
    print(max((p - q).abs().max().item() for p, q in zip(m1.parameters(), m2.parameters())) < 1e-6)
print(model_a[0].weight, model_c[2].bias)

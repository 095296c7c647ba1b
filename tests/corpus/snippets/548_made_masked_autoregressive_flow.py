# after: MADE / masked autoregressive flow (MAF) implementations (a MaskedLinear subclass of nn.Linear with register_buffer('mask') and F.linear(input, self.mask * self.weight, self.bias), masks from degrees, mu and alpha from one MADE, u = (x - mu) * torch.exp(-alpha), log_det = -alpha.sum(dim=1), flows with flipped variable order, a standard-normal base log-density written out with math.log(2 * math.pi))
# expect: match
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(17)


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self.register_buffer("mask", torch.ones(out_features, in_features))

    def set_mask(self, mask):
        self.mask.data.copy_(mask.float())

    def forward(self, input):
        return F.linear(input, self.mask * self.weight, self.bias)


class MADE(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.l1 = MaskedLinear(dim, hidden)
        self.l2 = MaskedLinear(hidden, 2 * dim)
        in_deg = torch.arange(1, dim + 1)
        hid_deg = torch.arange(hidden) % (dim - 1) + 1
        out_deg = torch.cat([in_deg, in_deg])
        self.l1.set_mask(hid_deg[:, None] >= in_deg[None, :])
        self.l2.set_mask(out_deg[:, None] > hid_deg[None, :])

    def forward(self, x):
        mu, alpha = self.l2(torch.relu(self.l1(x))).chunk(2, dim=1)
        return mu, alpha


class MAF(nn.Module):
    def __init__(self, dim, n_flows, hidden):
        super().__init__()
        self.layers = nn.ModuleList([MADE(dim, hidden) for _ in range(n_flows)])

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for made in self.layers:
            mu, alpha = made(x)
            x = (x - mu) * torch.exp(-alpha)
            log_det = log_det - alpha.sum(dim=1)
            x = x.flip(dims=(1,))
        return x, log_det

    def log_prob(self, x):
        u, log_det = self(x)
        base = -0.5 * (u**2).sum(dim=1) - 0.5 * u.shape[1] * math.log(2 * math.pi)
        return base + log_det


model = MAF(dim=3, n_flows=2, hidden=6)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(12, 3) @ torch.tensor([[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 1.0]])
for epoch in range(4):
    loss = -model.log_prob(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 5))
print(model.layers[0].l1.mask, model.layers[0].l2.weight.grad * (1 - model.layers[0].l2.mask))

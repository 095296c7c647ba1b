# after: "The Annotated Transformer" (subsequent_mask(size) = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8) == 0, make_std_mask combining the padding mask (tgt != pad).unsqueeze(-2) with it, attention() with scores.masked_fill(mask == 0, -1e9), the rate(step, model_size, factor, warmup) schedule used through LambdaLR with Adam(betas=(0.9, 0.98), eps=1e-9), and the older NoamOpt wrapper class whose step() sets p['lr'] on every param_group)
# expect: match
import math

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import LambdaLR


def subsequent_mask(size):
    "Mask out subsequent positions."
    attn_shape = (1, size, size)
    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
    return subsequent_mask == 0


def make_std_mask(tgt, pad):
    "Create a mask to hide padding and future words."
    tgt_mask = (tgt != pad).unsqueeze(-2)
    tgt_mask = tgt_mask & subsequent_mask(tgt.size(-1)).type_as(tgt_mask.data)
    return tgt_mask


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def rate(step, model_size, factor, warmup):
    if step == 0:
        step = 1
    return factor * (model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))


class NoamOpt:
    "Optim wrapper that implements rate."

    def __init__(self, model_size, factor, warmup, optimizer):
        self.optimizer = optimizer
        self._step = 0
        self.warmup = warmup
        self.factor = factor
        self.model_size = model_size
        self._rate = 0

    def step(self):
        "Update parameters and rate"
        self._step += 1
        rate = self.rate()
        for p in self.optimizer.param_groups:
            p["lr"] = rate
        self._rate = rate
        self.optimizer.step()

    def rate(self, step=None):
        if step is None:
            step = self._step
        return self.factor * (self.model_size ** (-0.5) * min(step ** (-0.5), step * self.warmup ** (-1.5)))


print(subsequent_mask(4).int())
tgt = torch.tensor([[1, 5, 3, 0, 0]])
print(make_std_mask(tgt, 0).int())

torch.manual_seed(11)
d_model = 8
proj = nn.Linear(d_model, 3 * d_model)
x = torch.randn(2, 5, d_model)
model_opt = NoamOpt(d_model, 1, 4, torch.optim.Adam(proj.parameters(), lr=0, betas=(0.9, 0.98), eps=1e-9))
mirror = nn.Linear(d_model, 3 * d_model)
mirror.load_state_dict(proj.state_dict())
optimizer = torch.optim.Adam(mirror.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
lr_scheduler = LambdaLR(optimizer=optimizer, lr_lambda=lambda step: rate(step + 1, d_model, factor=1, warmup=4))
mask = make_std_mask(torch.tensor([[2, 3, 4, 1, 0], [4, 4, 1, 0, 0]]), 0)
for step in range(6):
    for layer, opt in ((proj, model_opt), (mirror, optimizer)):
        q, k, v = layer(x).chunk(3, dim=-1)
        out, p_attn = attention(q, k, v, mask=mask)
        loss = out.pow(2).mean()
        loss.backward()
        opt.step()
        if opt is optimizer:
            opt.zero_grad(set_to_none=True)
            lr_scheduler.step()
        else:
            opt.optimizer.zero_grad()
    print(step, model_opt._rate, lr_scheduler.get_last_lr()[0])
print(torch.allclose(proj.weight, mirror.weight), p_attn[0, 0])

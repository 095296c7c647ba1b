# after: fast.ai book chapter 12 "A Language Model from Scratch" (LMModel3 keeping self.h = 0 as a plain number, h = h + self.i_h(x[:,i]); h = F.relu(self.h_h(h)) over the sequence, self.h = h.detach() for truncated BPTT, reset() setting self.h = 0; then LMModel4 returning an output for every step with torch.stack(outs, dim=1) and loss_func = F.cross_entropy(inp.view(-1, len(vocab)), targ.view(-1)))
# expect: match
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(12)
vocab_sz, n_hidden, sl, bs = 10, 8, 4, 3


class LMModel3(nn.Module):
    def __init__(self, vocab_sz, n_hidden):
        super().__init__()
        self.i_h = nn.Embedding(vocab_sz, n_hidden)
        self.h_h = nn.Linear(n_hidden, n_hidden)
        self.h_o = nn.Linear(n_hidden, vocab_sz)
        self.h = 0

    def forward(self, x):
        for i in range(3):
            self.h = self.h + self.i_h(x[:, i])
            self.h = F.relu(self.h_h(self.h))
        out = self.h_o(self.h)
        self.h = self.h.detach()
        return out

    def reset(self):
        self.h = 0


class LMModel4(nn.Module):
    def __init__(self, vocab_sz, n_hidden):
        super().__init__()
        self.i_h = nn.Embedding(vocab_sz, n_hidden)
        self.h_h = nn.Linear(n_hidden, n_hidden)
        self.h_o = nn.Linear(n_hidden, vocab_sz)
        self.h = 0

    def forward(self, x):
        outs = []
        for i in range(sl):
            self.h = self.h + self.i_h(x[:, i])
            self.h = F.relu(self.h_h(self.h))
            outs.append(self.h_o(self.h))
        self.h = self.h.detach()
        return torch.stack(outs, dim=1)

    def reset(self):
        self.h = 0


def loss_func(inp, targ):
    return F.cross_entropy(inp.view(-1, vocab_sz), targ.view(-1))


nums = torch.randint(0, vocab_sz, (40,))
m3 = LMModel3(vocab_sz, n_hidden)
opt = torch.optim.Adam(m3.parameters(), lr=1e-2)
m3.reset()
for i in range(0, 27, 9):
    x = torch.stack([nums[i + j * 3 : i + j * 3 + 3] for j in range(bs)])
    y = torch.stack([nums[i + j * 3 + 3] for j in range(bs)])
    loss = F.cross_entropy(m3(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("LMModel3", i, loss.item(), m3.h.requires_grad)

m4 = LMModel4(vocab_sz, n_hidden)
opt = torch.optim.Adam(m4.parameters(), lr=1e-2)
for epoch in range(2):
    m4.reset()
    for i in range(0, 24, 12):
        x = nums[i : i + 12].view(bs, sl)
        y = nums[i + 1 : i + 13].view(bs, sl)
        loss = loss_func(m4(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("LMModel4", epoch, i, loss.item())
print(m4.h.shape, m4.h_h.weight.grad.norm())

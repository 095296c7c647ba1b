# after: PyTorch NLP "char-RNN from scratch" style nn.RNNCell unrolled loop with Adam and grad clipping
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(3)
cell = nn.RNNCell(4, 6)
head = nn.Linear(6, 4)
params = list(cell.parameters()) + list(head.parameters())
opt = torch.optim.Adam(params, lr=0.01)
seq = torch.randn(5, 1, 4)
target = torch.randint(0, 4, (5,))
for it in range(60):
    h = torch.zeros(1, 6)
    loss = 0
    for t in range(5):
        h = cell(seq[t], h)
        loss = loss + nn.functional.cross_entropy(head(h), target[t:t + 1])
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    if it % 20 == 0:
        print(it, round(loss.item(), 5))

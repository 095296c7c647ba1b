# after: "orthogonal RNN" posts for long sequences (torch.nn.utils.parametrizations.orthogonal(rnn, "weight_hh_l0") with orthogonal_map="matrix_exp" and "cayley" and the default, the recurrent matrix staying orthogonal while Adam trains on a copy task, W.T @ W checked against the identity, the gradient of the original, compared with an unconstrained nn.RNN)
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import orthogonal

torch.manual_seed(13)
hidden = 6
x = torch.randn(4, 10, 3)
target = torch.randn(4, hidden)

for orth_map in ("matrix_exp", "cayley", None):
    rnn = nn.RNN(3, hidden, batch_first=True, nonlinearity="tanh")
    if orth_map is None:
        orthogonal(rnn, "weight_hh_l0")
    else:
        orthogonal(rnn, "weight_hh_l0", orthogonal_map=orth_map)
    opt = torch.optim.Adam(rnn.parameters(), lr=0.05)
    for step in range(3):
        out, h_n = rnn(x)
        loss = (h_n[-1] - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    W = rnn.weight_hh_l0
    print(orth_map, loss.item(), torch.allclose(W.T @ W, torch.eye(hidden), atol=1e-5))
    print(rnn.parametrizations.weight_hh_l0.original.grad.norm())

plain = nn.RNN(3, hidden, batch_first=True)
opt = torch.optim.Adam(plain.parameters(), lr=0.05)
for step in range(3):
    out, h_n = plain(x)
    loss = (h_n[-1] - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
W = plain.weight_hh_l0.detach()
print(loss.item(), (W.T @ W - torch.eye(hidden)).abs().max() > 1e-3)

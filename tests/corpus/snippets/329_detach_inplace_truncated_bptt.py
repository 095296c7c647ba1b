# after: truncated-BPTT RNN examples (hidden.detach_() between chunks so the graph stops; detach() vs detach_() on a non-leaf)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNNCell(3, 4)
readout = nn.Linear(4, 1)
params = list(rnn.parameters()) + list(readout.parameters())
optimizer = torch.optim.SGD(params, lr=0.05)
seq = torch.randn(6, 2, 3)
targets = torch.randn(6, 2, 1)
hidden = torch.zeros(2, 4)
for chunk in range(3):
    loss = 0
    for t in range(chunk * 2, chunk * 2 + 2):
        hidden = rnn(seq[t], hidden)
        loss = loss + (readout(hidden) - targets[t]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    hidden.detach_()
    print(chunk, loss.item(), hidden.requires_grad, hidden.grad_fn)
print(rnn.weight_hh)

# after: PyTorch forum "Trying to backward through the graph a second time" in a stateful GRUCell language model (the state h kept from one minibatch to the next without h = h.detach())
# expect: explained backward-twice
# mentions: `state` | line 18 | state = state.detach() | before line 17
import torch
import torch.nn as nn

torch.manual_seed(26)
cell = nn.GRUCell(4, 6)
readout = nn.Linear(6, 4)
params = list(cell.parameters()) + list(readout.parameters())
opt = torch.optim.SGD(params, lr=0.1)
stream = torch.randn(3, 5, 2, 4)

state = torch.zeros(2, 6)
for chunk in stream:
    loss = 0.0
    for t in range(chunk.size(0) - 1):
        state = cell(chunk[t], state)
        loss = loss + ((readout(state) - chunk[t + 1]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

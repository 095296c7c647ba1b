# after: PyTorch word-language-model style question: an LSTM's (h, c) state carried between batches without repackaging
# expect: explained backward-twice
# mentions: `state` | detach()
import torch
import torch.nn as nn

lstm = nn.LSTM(input_size=4, hidden_size=6)
head = nn.Linear(6, 4)
optimizer = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)

state = (torch.zeros(1, 3, 6), torch.zeros(1, 3, 6))
sequence = torch.randn(12, 3, 4)
for chunk in sequence.split(4):
    output, state = lstm(chunk, state)
    loss_val = ((head(output[:-1]) - chunk[1:]) ** 2).mean()
    optimizer.zero_grad()
    loss_val.backward()
    optimizer.step()

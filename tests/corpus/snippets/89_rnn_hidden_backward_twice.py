# after: PyTorch forum "Trying to backward through the graph a second time" with an RNN hidden state carried across batches without detach
# expect: explained backward-twice
# mentions: `hidden` | line 15 | hidden = hidden.detach()
import torch
import torch.nn as nn

rnn = nn.RNN(input_size=3, hidden_size=5, batch_first=True)
fc = nn.Linear(5, 1)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(fc.parameters()), lr=0.01)

hidden = torch.zeros(1, 2, 5)
for batch in range(3):
    x = torch.randn(2, 4, 3)
    target = torch.randn(2, 1)
    out, hidden = rnn(x, hidden)
    loss = ((fc(out[:, -1]) - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(batch, loss.item())

# after: "Truncated backpropagation through time" forum answers (hidden.detach_() between chunks)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(3)
rnn = nn.RNN(input_size=2, hidden_size=3, batch_first=True)
head = nn.Linear(3, 1)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
sequence = torch.randn(1, 12, 2)
target = torch.randn(1, 12, 1)
hidden = torch.zeros(1, 1, 3)
for start in range(0, 12, 4):
    chunk = sequence[:, start:start + 4]
    out, hidden = rnn(chunk, hidden)
    loss = nn.functional.mse_loss(head(out), target[:, start:start + 4])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    hidden.detach_()
    print(start, round(loss.item(), 6), hidden.requires_grad)

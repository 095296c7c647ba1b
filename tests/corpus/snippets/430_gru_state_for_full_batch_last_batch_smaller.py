# after: PyTorch forum "Expected hidden size (1, 2, 32), got [1, 8, 32]" (the GRU's starting state made once for the batch size, and the DataLoader's last batch is smaller)
# expect: explained rnn-hidden-shape
# mentions: `hidden` | (1, 2, 32) | [1, 8, 32] | torch.zeros(1, xb.size(0), 32)
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(32)
dataset = TensorDataset(torch.randn(18, 5, 3), torch.randn(18, 1))
loader = DataLoader(dataset, batch_size=8)
gru = nn.GRU(3, 32, batch_first=True)
head = nn.Linear(32, 1)
optimizer = torch.optim.Adam(list(gru.parameters()) + list(head.parameters()))
batch_size = 8
for xb, yb in loader:
    hidden = torch.zeros(1, batch_size, 32)
    out, hidden = gru(xb, hidden)
    loss = ((head(out[:, -1]) - yb) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(loss.item())

# after: PyTorch forum "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) tensors" (an LSTM's initial state made as (batch, hidden) with batch_first=True)
# expect: explained rnn-hidden-shape
# mentions: `self.lstm` | `(h0, c0)` | batch_first=True | .unsqueeze(0)
import torch
import torch.nn as nn

class Forecaster(nn.Module):
    def __init__(self, n_features=4, hidden=10):
        super().__init__()
        self.hidden = hidden
        self.lstm = nn.LSTM(n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h0 = torch.zeros(x.size(0), self.hidden)
        c0 = torch.zeros(x.size(0), self.hidden)
        out, _ = self.lstm(x, (h0, c0))
        return self.head(out[:, -1])

model = Forecaster()
series = torch.randn(5, 12, 4)
pred = model(series)

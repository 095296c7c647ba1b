# after: learners switching an LSTM model to nn.GRU without changing the state ("AttributeError: 'tuple' object has no attribute 'dim'": the GRU still given (h0, c0) as for an LSTM)
# expect: explained rnn-state-form
# mentions: (h0, c0) | h0
import torch
import torch.nn as nn

torch.manual_seed(23)


class Forecaster(nn.Module):
    def __init__(self, n_features, hidden_size, num_layers=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.rnn = nn.GRU(n_features, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, 1)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        out, _ = self.rnn(x, (h0, c0))
        return self.fc(out[:, -1, :])


model = Forecaster(3, 8)
print(model(torch.randn(4, 6, 3)).shape)

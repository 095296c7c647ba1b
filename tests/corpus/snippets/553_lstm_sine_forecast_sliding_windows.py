# after: "time-series forecasting with LSTM in PyTorch" posts (a sine wave cut into sliding windows with a create_sequences loop and torch.stack, nn.LSTM(input_size=1, hidden_size, num_layers=2, batch_first=True), out[:, -1, :] into a Linear, h0/c0 of zeros made in forward, Adam with MSELoss, then an autoregressive forecast under torch.no_grad() feeding each prediction back with torch.cat)
# expect: match
import math

import torch
import torch.nn as nn

torch.manual_seed(4)
t = torch.linspace(0, 4 * math.pi, 40)
series = torch.sin(t) + 0.05 * torch.randn(40)
seq_len = 6


def create_sequences(data, seq_len):
    xs, ys = [], []
    for i in range(len(data) - seq_len):
        xs.append(data[i : i + seq_len])
        ys.append(data[i + seq_len])
    return torch.stack(xs).unsqueeze(-1), torch.stack(ys).unsqueeze(-1)


X, y = create_sequences(series, seq_len)
X_train, y_train = X[:28], y[:28]


class LSTMModel(nn.Module):
    def __init__(self, input_size=1, hidden_size=12, num_layers=2, output_size=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        out, _ = self.lstm(x, (h0, c0))
        return self.fc(out[:, -1, :])


model = LSTMModel()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(5):
    model.train()
    optimizer.zero_grad()
    outputs = model(X_train)
    loss = criterion(outputs, y_train)
    loss.backward()
    optimizer.step()
    print(f"Epoch [{epoch + 1}/5], Loss: {loss.item():.4f}")

model.eval()
window = X[28:29].clone()
preds = []
with torch.no_grad():
    for _ in range(4):
        nxt = model(window)
        preds.append(nxt.item())
        window = torch.cat([window[:, 1:, :], nxt.unsqueeze(1)], dim=1)
print([round(p, 4) for p in preds], y[28:32].squeeze(-1))

# after: PyTorch forum "IndexError: index 1 is out of bounds for dimension 0 with size 1" from nn.LSTM (the initial state passed as h0 alone, as for a GRU or RNN, instead of the (h0, c0) pair)
# expect: explained rnn-state-form
# mentions: h0 | (h0, c0)
import torch
import torch.nn as nn

torch.manual_seed(24)
lstm = nn.LSTM(input_size=3, hidden_size=5, batch_first=True)
x = torch.randn(2, 4, 3)
h0 = torch.zeros(1, 2, 5)
output, (hn, cn) = lstm(x, h0)
print(output.shape)

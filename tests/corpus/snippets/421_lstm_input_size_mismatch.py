# after: PyTorch forum "RuntimeError: input.size(-1) must be equal to input_size. Expected 10, got 8" (an LSTM built for 10 features fed sequences of 8)
# expect: explained rnn-input-size
# mentions: `sensor_lstm` | `readings` has 8 | nn.LSTM(input_size=8, ...)
import torch
import torch.nn as nn

sensor_lstm = nn.LSTM(input_size=10, hidden_size=16, batch_first=True)
readings = torch.randn(4, 20, 8)
outputs, (h_n, c_n) = sensor_lstm(readings)

# after: PyTorch "Chatbot Tutorial" EncoderRNN (nn.utils.rnn.pack_padded_sequence / pad_packed_sequence around a GRU)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
embedding = nn.Embedding(10, 4)
gru = nn.GRU(4, 5, bidirectional=True)
input_seq = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 0], [9, 0, 0]])  # (max_len, batch)
input_lengths = torch.tensor([4, 3, 2])
embedded = embedding(input_seq)
packed = nn.utils.rnn.pack_padded_sequence(embedded, input_lengths)
outputs, hidden = gru(packed)
outputs, lengths = nn.utils.rnn.pad_packed_sequence(outputs)
outputs = outputs[:, :, :5] + outputs[:, :, 5:]
print(outputs.shape, lengths)
loss = outputs.sum()

# after: PyTorch forum "Expected hidden size (1, 2, 16), got [2, 2, 16]" (a seq2seq model whose encoder GRU was made bidirectional, its final hidden state passed unchanged as the unidirectional decoder's initial state)
# expect: explained rnn-hidden-shape
# mentions: encoder_hidden | bidirectional=True | encoder_hidden.view(1, 2, -1, 16).sum(dim=1)
import torch
import torch.nn as nn

torch.manual_seed(22)
embedding = nn.Embedding(12, 8)
encoder = nn.GRU(8, 16, batch_first=True, bidirectional=True)
decoder = nn.GRU(8, 16, batch_first=True)
src = torch.randint(0, 12, (2, 5))
tgt = torch.randint(0, 12, (2, 4))
encoder_outputs, encoder_hidden = encoder(embedding(src))
decoder_outputs, decoder_hidden = decoder(embedding(tgt), encoder_hidden)
print(decoder_outputs.shape)

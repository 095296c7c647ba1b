# after: PyTorch "NLP From Scratch: Translation with a Sequence to Sequence Network" (EncoderRNN with Embedding + GRU, a DecoderRNN run one step at a time from SOS_token with F.relu before the GRU, teacher forcing chosen with random.random() < teacher_forcing_ratio, decoder_input = topi.squeeze().detach() otherwise, loss += criterion(decoder_output, target_tensor[di]), two optimizers)
# expect: match
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

random.seed(2)
torch.manual_seed(2)
SOS_token, EOS_token = 0, 1
teacher_forcing_ratio = 0.5
MAX_LENGTH = 6


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).view(1, 1, -1)
        output, hidden = self.gru(embedded, hidden)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(DecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        output = self.embedding(input).view(1, 1, -1)
        output = F.relu(output)
        output, hidden = self.gru(output, hidden)
        output = self.softmax(self.out(output[0]))
        return output, hidden


def train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion):
    encoder_hidden = encoder.initHidden()
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    input_length = input_tensor.size(0)
    target_length = target_tensor.size(0)
    encoder_outputs = torch.zeros(MAX_LENGTH, encoder.hidden_size)
    loss = 0
    for ei in range(input_length):
        encoder_output, encoder_hidden = encoder(input_tensor[ei], encoder_hidden)
        encoder_outputs[ei] = encoder_output[0, 0]
    decoder_input = torch.tensor([[SOS_token]])
    decoder_hidden = encoder_hidden
    use_teacher_forcing = True if random.random() < teacher_forcing_ratio else False
    if use_teacher_forcing:
        for di in range(target_length):
            decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
            loss += criterion(decoder_output, target_tensor[di])
            decoder_input = target_tensor[di]
    else:
        for di in range(target_length):
            decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
            topv, topi = decoder_output.topk(1)
            decoder_input = topi.squeeze().detach()
            loss += criterion(decoder_output, target_tensor[di])
            if decoder_input.item() == EOS_token:
                break
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss.item() / target_length, use_teacher_forcing


encoder = EncoderRNN(7, 10)
decoder = DecoderRNN(10, 8)
encoder_optimizer = optim.SGD(encoder.parameters(), lr=0.01)
decoder_optimizer = optim.SGD(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss()
pairs = [([2, 3, 4, 1], [2, 5, 1]), ([5, 6, 1], [3, 4, 6, 1]), ([3, 2, 1], [7, 1])]
for epoch in range(2):
    for src, tgt in pairs:
        input_tensor = torch.tensor(src, dtype=torch.long).view(-1, 1)
        target_tensor = torch.tensor(tgt, dtype=torch.long).view(-1, 1)
        print(epoch, train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion))
print(encoder.embedding.weight.grad.abs().sum(dim=1))

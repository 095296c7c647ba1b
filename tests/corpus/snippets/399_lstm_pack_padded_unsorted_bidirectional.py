# after: text-classification tutorials with packed sequences (nn.Embedding(padding_idx=0), pack_padded_sequence(..., batch_first=True, enforce_sorted=False) with lengths on the CPU, a 2-layer bidirectional LSTM, h_n[-2] and h_n[-1] concatenated, pad_packed_sequence for the outputs)
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

class LSTMClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_class):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(hidden_dim * 2, num_class)

    def forward(self, text, lengths):
        embedded = self.embedding(text)
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        packed_output, (hidden, cell) = self.lstm(packed)
        output, output_lengths = pad_packed_sequence(packed_output, batch_first=True)
        hidden = torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)
        return self.fc(hidden), output, output_lengths

torch.manual_seed(15)
model = LSTMClassifier(vocab_size=20, embed_dim=6, hidden_dim=5, num_class=3)
text = torch.tensor([[4, 7, 2, 0, 0], [3, 9, 11, 5, 8], [6, 1, 0, 0, 0], [13, 2, 2, 19, 0]])
lengths = torch.tensor([3, 5, 2, 4])
labels = torch.tensor([0, 2, 1, 2])
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(3):
    logits, output, output_lengths = model(text, lengths)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, round(loss.item(), 6))
print(output.shape, output_lengths)
print(output[2, 2:].abs().sum().item())
print(model.embedding.weight.grad[0])
print(model.lstm.weight_hh_l1_reverse.grad.abs().sum())

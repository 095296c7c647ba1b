# after: Ben Trevett's pytorch-sentiment-analysis "Upgraded Sentiment Analysis" (nn.Embedding with padding_idx, a bidirectional 2-layer LSTM over pack_padded_sequence(embedded, text_lengths.to('cpu'), enforce_sorted=False), hidden = self.dropout(torch.cat((hidden[-2,:,:], hidden[-1,:,:]), dim = 1)), binary_accuracy with torch.round(torch.sigmoid(preds)), BCEWithLogitsLoss, train and evaluate functions)
# expect: match
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(7)
PAD_IDX = 0


class RNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers, bidirectional, dropout, pad_idx):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
        self.rnn = nn.LSTM(
            embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional, dropout=dropout
        )
        self.fc = nn.Linear(hidden_dim * 2, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, text, text_lengths):
        embedded = self.dropout(self.embedding(text))
        packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, text_lengths.to("cpu"), enforce_sorted=False)
        packed_output, (hidden, cell) = self.rnn(packed_embedded)
        output, output_lengths = nn.utils.rnn.pad_packed_sequence(packed_output)
        hidden = self.dropout(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
        return self.fc(hidden)


def binary_accuracy(preds, y):
    rounded_preds = torch.round(torch.sigmoid(preds))
    correct = (rounded_preds == y).float()
    return correct.sum() / len(correct)


model = RNN(25, 6, 5, 1, 2, True, 0.5, PAD_IDX)
optimizer = optim.Adam(model.parameters())
criterion = nn.BCEWithLogitsLoss()
text = torch.tensor([[4, 7, 2, 9], [5, 3, 8, 0], [6, 0, 3, 0], [0, 0, 11, 0]])
text_lengths = torch.tensor([3, 3, 4, 2])
label = torch.tensor([1.0, 0.0, 1.0, 0.0])


def train(model):
    model.train()
    optimizer.zero_grad()
    predictions = model(text, text_lengths).squeeze(1)
    loss = criterion(predictions, label)
    acc = binary_accuracy(predictions, label)
    loss.backward()
    optimizer.step()
    return loss.item(), acc.item()


def evaluate(model):
    model.eval()
    with torch.no_grad():
        predictions = model(text, text_lengths).squeeze(1)
        loss = criterion(predictions, label)
        acc = binary_accuracy(predictions, label)
    return loss.item(), acc.item(), predictions


for epoch in range(3):
    print(epoch, train(model), evaluate(model)[:2])
print(evaluate(model)[2], model.embedding.weight.grad[PAD_IDX])

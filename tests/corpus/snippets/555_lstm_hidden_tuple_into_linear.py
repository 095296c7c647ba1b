# after: Stack Overflow "linear(): argument 'input' (position 1) must be Tensor, not tuple" (an LSTM classifier that unpacks `output, hidden = self.lstm(x)` and hands the (h_n, c_n) tuple to the Linear head)
# expect: explained tensor-expected
# mentions: hidden | hidden[0][-1]
import torch
import torch.nn as nn

torch.manual_seed(6)


class SentimentLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.fc = nn.Linear(hidden_dim, 1)

    def forward(self, x):
        embedded = self.embedding(x)
        output, hidden = self.lstm(embedded)
        return self.fc(hidden)


model = SentimentLSTM(30, 6, 8)
reviews = torch.randint(0, 30, (4, 7))
scores = model(reviews)
print(scores.shape)

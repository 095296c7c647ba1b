# after: sentiment-analysis tutorials with a transformer (variable-length reviews padded with nn.utils.rnn.pad_sequence(batch_first=True), src_key_padding_mask from the padding value, max pooling with masked_fill(-inf), BCEWithLogitsLoss, a training step, predictions with torch.sigmoid in eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

PAD_IDX = 0


class SentimentTransformer(nn.Module):
    def __init__(self, vocab_size, embed_dim=16, num_heads=2, num_layers=1, max_len=16):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=PAD_IDX)
        self.position = nn.Parameter(torch.randn(1, max_len, embed_dim) * 0.02)
        encoder_layer = nn.TransformerEncoderLayer(embed_dim, num_heads, dim_feedforward=32, dropout=0.2, batch_first=True)
        self.transformer = nn.TransformerEncoder(encoder_layer, num_layers)
        self.dropout = nn.Dropout(0.2)
        self.out = nn.Linear(embed_dim, 1)

    def forward(self, text):
        padding_mask = text == PAD_IDX
        x = self.embedding(text) + self.position[:, : text.size(1)]
        x = self.transformer(x, src_key_padding_mask=padding_mask)
        x = x.masked_fill(padding_mask.unsqueeze(-1), float("-inf")).max(dim=1).values
        return self.out(self.dropout(x)).squeeze(-1)


torch.manual_seed(16)
reviews = [torch.tensor([5, 8, 13, 21, 4]), torch.tensor([7, 2]), torch.tensor([9, 9, 3])]
labels = torch.tensor([1.0, 0.0, 1.0])
batch = pad_sequence(reviews, batch_first=True, padding_value=PAD_IDX)
model = SentimentTransformer(vocab_size=25)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

model.train()
optimizer.zero_grad()
loss = criterion(model(batch), labels)
loss.backward()
optimizer.step()
print(batch)
print(loss.item(), model.position.grad[0, 4].abs().sum())

model.eval()
with torch.no_grad():
    probs = torch.sigmoid(model(batch))
print(probs, (probs > 0.5).long())

# after: variable-length sequence classification tutorials (a Dataset of token-id tensors of different lengths, collate_fn with torch.nn.utils.rnn.pad_sequence(batch_first=True, padding_value=0) and lengths, WeightedRandomSampler(weights=1.0 / class_counts[labels], num_samples, replacement=True, generator=...) for an imbalanced dataset, pack_padded_sequence(enforce_sorted=False) into an nn.GRU, the last hidden state into a Linear, a short training loop)
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

torch.manual_seed(5)
lengths = torch.randint(2, 7, (20,)).tolist()
sequences = [torch.randint(1, 15, (n,)) for n in lengths]
labels = torch.tensor([1 if i % 5 == 0 else 0 for i in range(20)])


class SeqDataset(Dataset):
    def __init__(self, sequences, labels):
        self.sequences = sequences
        self.labels = labels

    def __len__(self):
        return len(self.sequences)

    def __getitem__(self, idx):
        return self.sequences[idx], self.labels[idx]


def collate_fn(batch):
    seqs, ys = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = pad_sequence(seqs, batch_first=True, padding_value=0)
    return padded, lengths, torch.stack(ys)


class_counts = torch.bincount(labels)
sample_weights = 1.0 / class_counts[labels].float()
print(class_counts, sample_weights[:6])
sampler = WeightedRandomSampler(weights=sample_weights, num_samples=len(sample_weights), replacement=True, generator=torch.Generator().manual_seed(3))
loader = DataLoader(SeqDataset(sequences, labels), batch_size=5, sampler=sampler, collate_fn=collate_fn)


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.gru = nn.GRU(embed_dim, hidden_dim, batch_first=True)
        self.fc = nn.Linear(hidden_dim, num_classes)

    def forward(self, x, lengths):
        embedded = self.embedding(x)
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        _, hidden = self.gru(packed)
        return self.fc(hidden[-1])


model = GRUClassifier(15, 6, 8, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
seen = torch.zeros(2, dtype=torch.long)
for epoch in range(2):
    for padded, lens, ys in loader:
        seen += torch.bincount(ys, minlength=2)
        optimizer.zero_grad()
        loss = criterion(model(padded, lens), ys)
        loss.backward()
        optimizer.step()
    print(epoch, loss.item(), padded.shape)
print(seen, model.embedding.weight.grad[0])

# after: Stack Overflow "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead" (token ids read from a float array into nn.Embedding)
# expect: explained embedding-ids-dtype
# mentions: `self.embedding` | `tokens` holds Float numbers | self.embedding(tokens.long())
import numpy as np
import torch
import torch.nn as nn

class BagOfWords(nn.Module):
    def __init__(self, vocab_size=50, dim=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.out = nn.Linear(dim, 2)

    def forward(self, tokens):
        return self.out(self.embedding(tokens).mean(dim=1))

ids = np.array([[3, 17, 42], [5, 5, 9]], dtype=np.float32)
model = BagOfWords()
logits = model(torch.from_numpy(ids))

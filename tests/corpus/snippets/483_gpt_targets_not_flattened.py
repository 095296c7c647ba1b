# after: Karpathy "Let's build GPT" follow-along errors ("Expected input batch_size (16) to match target batch_size (2)": logits reshaped to (B*T, C) for F.cross_entropy but the targets left as (B, T))
# expect: explained batch-size-mismatch
# mentions: row of `yb`, which has 2 rows | `logits` is reshaped | yb.view(-1)
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(17)
vocab_size = 11
table = nn.Embedding(vocab_size, vocab_size)
xb = torch.randint(0, vocab_size, (2, 8))
yb = torch.randint(0, vocab_size, (2, 8))
logits = table(xb)
B, T, C = logits.shape
logits = logits.view(B * T, C)
loss = F.cross_entropy(logits, yb)
loss.backward()

# after: Karpathy "Let's build GPT" bigram.py (BigramLanguageModel.generate: crop idx to the last block_size tokens, logits[:, -1, :], softmax, torch.multinomial(probs, num_samples=1), torch.cat((idx, idx_next), dim=1)) under a seed
# expect: match
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
chars = sorted(list(set("hello world, this is tiny shakespeare")))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for i, ch in enumerate(chars)}
encode = lambda s: [stoi[c] for c in s]
decode = lambda l: ''.join([itos[i] for i in l])


class BigramLanguageModel(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.token_embedding_table(idx)
        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            loss = F.cross_entropy(logits.view(B * T, C), targets.view(B * T))
        return logits, loss

    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits, loss = self(idx)
            logits = logits[:, -1, :]
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


data = torch.tensor(encode("hello world, this is tiny shakespeare"), dtype=torch.long)
m = BigramLanguageModel(vocab_size)
xb = data[:-1].view(1, -1)
yb = data[1:].view(1, -1)
logits, loss = m(xb, yb)
print(logits.shape, loss)
optimizer = torch.optim.AdamW(m.parameters(), lr=1e-1)
for steps in range(20):
    logits, loss = m(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
print(loss.item())
idx = torch.zeros((1, 1), dtype=torch.long)
print(decode(m.generate(idx, max_new_tokens=30)[0].tolist()))

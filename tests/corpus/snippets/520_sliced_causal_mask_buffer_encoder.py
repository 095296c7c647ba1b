# after: decoder-only language models built on nn.TransformerEncoder (a causal mask made once for the longest context and registered as a buffer, sliced to the current length `self.causal_mask[:T, :T]`, batch_first=True, greedy generation in eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=20, d_model=16, block_size=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(block_size, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 32, dropout=0.1, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)
        mask = torch.triu(torch.ones(block_size, block_size, dtype=torch.bool), diagonal=1)
        self.register_buffer("causal_mask", mask)

    def forward(self, idx):
        T = idx.size(1)
        h = self.tok(idx) + self.pos(torch.arange(T))
        h = self.blocks(h, mask=self.causal_mask[:T, :T])
        return self.head(h)


torch.manual_seed(20)
model = TinyLM()
model.eval()
idx = torch.tensor([[3, 5]])
with torch.no_grad():
    for _ in range(4):
        logits = model(idx)
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        idx = torch.cat([idx, nxt], dim=1)
print(idx)
print(logits[0, -1])

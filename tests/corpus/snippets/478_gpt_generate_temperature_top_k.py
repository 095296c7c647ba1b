# after: nanoGPT model.py GPT.generate (@torch.no_grad(), idx_cond cropped to block_size, logits[:, -1, :] / temperature, top_k with torch.topk and logits[logits < v[:, [-1]]] = -float('Inf'), torch.multinomial) on a tiny untrained model under a seed
# expect: match
import torch
import torch.nn as nn
from torch.nn import functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab_size=12, n_embd=8, block_size=4):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(t))
        return self.lm_head(torch.tanh(x))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


torch.manual_seed(1337)
model = TinyLM()
model.eval()
start = torch.zeros((2, 1), dtype=torch.long)
print(model.generate(start, 8, temperature=0.8, top_k=3))
print(model.generate(start, 8, temperature=1.5))
out = model.generate(start, 3, top_k=1)
print(out, out.requires_grad)

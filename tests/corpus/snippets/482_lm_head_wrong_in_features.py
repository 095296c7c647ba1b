# after: Karpathy "Let's build GPT" follow-along errors ("mat1 and mat2 shapes cannot be multiplied": the language-model head built for the concatenated heads' size, 2 * n_embd, while the blocks give n_embd features)
# expect: explained matmul-shape
# mentions: Inside `self.lm_head(x)` | 32 input features | 16 numbers in each row | nn.Linear(16, 10)
import torch
import torch.nn as nn

n_embd = 16
vocab_size = 10


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, n_embd)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(2 * n_embd, vocab_size)

    def forward(self, idx):
        x = self.ln_f(self.tok(idx))
        return self.lm_head(x)


torch.manual_seed(16)
model = TinyGPT()
idx = torch.randint(0, vocab_size, (2, 5))
logits = model(idx)
print(logits.shape)

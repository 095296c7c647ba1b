# after: "build a small GPT with nn.TransformerEncoder" tutorials (token and position embeddings, blocks = nn.TransformerEncoder(TransformerEncoderLayer(norm_first=True, activation="gelu", batch_first=True)), causal mask from generate_square_subsequent_mask with is_causal=True, a final LayerNorm and lm_head, cropping to block_size, sampling with torch.multinomial under torch.inference_mode after a training step)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F


class GPT(nn.Module):
    def __init__(self, vocab_size=24, block_size=6, n_embd=16, n_head=4, n_layer=2):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Embedding(block_size, n_embd)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, dropout=0.1, activation="gelu", batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(T))
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        x = self.blocks(x, mask=mask, is_causal=True)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(B * T, -1), targets.reshape(B * T))
        return logits, loss

    @torch.inference_mode()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.block_size:]
            logits, _ = self(idx_cond)
            probs = F.softmax(logits[:, -1, :], dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


torch.manual_seed(33)
model = GPT()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randint(0, 24, (4, 7))
logits, loss = model(data[:, :-1], data[:, 1:])
optimizer.zero_grad(set_to_none=True)
loss.backward()
optimizer.step()
print(loss.item())
model.eval()
out = model.generate(torch.zeros((1, 1), dtype=torch.long), max_new_tokens=8)
print(out)

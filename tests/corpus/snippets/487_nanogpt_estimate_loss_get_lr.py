# after: nanoGPT train.py (get_lr with linear warmup then cosine decay to min_lr written with math.cos, setting param_group['lr'] each iteration, @torch.no_grad() estimate_loss with model.eval()/model.train() over eval_iters batches, gradient accumulation over micro-steps with loss / gradient_accumulation_steps, clip_grad_norm_ and optimizer.zero_grad(set_to_none=True))
# expect: match
import math

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
vocab_size, block_size, batch_size = 13, 6, 4
data = {"train": torch.randint(0, vocab_size, (300,)), "val": torch.randint(0, vocab_size, (100,))}


def get_batch(split):
    d = data[split]
    ix = torch.randint(len(d) - block_size, (batch_size,))
    x = torch.stack([d[i:i + block_size] for i in ix])
    y = torch.stack([d[i + 1:i + 1 + block_size] for i in ix])
    return x, y


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, 16)
        self.drop = nn.Dropout(0.1)
        self.ln = nn.LayerNorm(16)
        self.head = nn.Linear(16, vocab_size)

    def forward(self, idx, targets):
        logits = self.head(self.ln(self.drop(self.emb(idx))))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


model = Tiny()
learning_rate, min_lr, warmup_iters, lr_decay_iters = 6e-3, 6e-4, 3, 10
eval_iters, gradient_accumulation_steps, grad_clip = 2, 2, 1.0
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=0.1)


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ['train', 'val']:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


X, Y = get_batch('train')
for iter_num in range(12):
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    if iter_num % 4 == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    for micro_step in range(gradient_accumulation_steps):
        logits, loss = model(X, Y)
        loss = loss / gradient_accumulation_steps
        X, Y = get_batch('train')
        loss.backward()
    if grad_clip != 0.0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    print(iter_num, round(lr, 6), loss.item() * gradient_accumulation_steps)

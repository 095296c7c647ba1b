# after: Karpathy nn-zero-to-hero "makemore part 3" (kaiming-scaled W1, batch norm by hand with bngain/bnbias, running stats under torch.no_grad())
# expect: match
import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(2147483647)
n_embd, n_hidden, vocab_size, block_size = 4, 16, 10, 3
C = torch.randn((vocab_size, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
b2 = torch.randn(vocab_size, generator=g) * 0
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True

Xtr = torch.randint(0, vocab_size, (64, block_size), generator=g)
Ytr = torch.randint(0, vocab_size, (64,), generator=g)
lossi = []
for i in range(25):
    ix = torch.randint(0, Xtr.shape[0], (16,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 20 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    lossi.append(loss.log10().item())
print(f"{loss.item():.4f}", len(lossi))
print(bnmean_running[0, :4], bnstd_running[0, :4])

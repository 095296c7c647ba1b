# after: Karpathy "Building makemore Part 2: MLP" (g = torch.Generator().manual_seed(2147483647) passed to torch.randn and torch.multinomial, C[X] embedding lookup, emb.view(-1, 6), F.cross_entropy, minibatch ix = torch.randint(0, X.shape[0], (32,)), learning-rate decay, sampling names)
# expect: match
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
block_size = 3
X, Y = [], []
for w in words:
    context = [0] * block_size
    for ch in w + '.':
        ix = stoi[ch]
        X.append(context)
        Y.append(ix)
        context = context[1:] + [ix]
X = torch.tensor(X)
Y = torch.tensor(Y)
print(X.shape, X.dtype, Y.shape, Y.dtype)

g = torch.Generator().manual_seed(2147483647)
vocab = len(stoi)
C = torch.randn((vocab, 2), generator=g)
W1 = torch.randn((6, 100), generator=g)
b1 = torch.randn(100, generator=g)
W2 = torch.randn((100, vocab), generator=g)
b2 = torch.randn(vocab, generator=g)
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True
lossi = []
for i in range(60):
    ix = torch.randint(0, X.shape[0], (32,), generator=g)
    emb = C[X[ix]]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 40 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    lossi.append(loss.log10().item())
print(loss.item(), lossi[:3])

emb = C[X]
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
print(F.cross_entropy(h @ W2 + b2, Y).item())
g = torch.Generator().manual_seed(2147483647 + 10)
for _ in range(3):
    out = []
    context = [0] * block_size
    while True:
        emb = C[torch.tensor([context])]
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        probs = F.softmax(h @ W2 + b2, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0 or len(out) > 12:
            break
    print(''.join(itos[i] for i in out))

# after: Karpathy nn-zero-to-hero "makemore part 2: MLP" notebook (embedding table C, tanh hidden layer, F.cross_entropy, p.grad = None, p.data += -lr * p.grad)
# expect: match
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia"]
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
vocab_size = len(stoi)

block_size = 3
X, Y = [], []
for w in words:
    context = [0] * block_size
    for ch in w + ".":
        ix = stoi[ch]
        X.append(context)
        Y.append(ix)
        context = context[1:] + [ix]
X = torch.tensor(X)
Y = torch.tensor(Y)
print(X.shape, X.dtype, Y.shape, Y.dtype)

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, 2), generator=g)
W1 = torch.randn((6, 100), generator=g)
b1 = torch.randn(100, generator=g)
W2 = torch.randn((100, vocab_size), generator=g)
b2 = torch.randn(vocab_size, generator=g)
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

for _ in range(30):
    ix = torch.randint(0, X.shape[0], (8,), generator=g)
    emb = C[X[ix]]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1
    for p in parameters:
        p.data += -lr * p.grad
print(loss.item())

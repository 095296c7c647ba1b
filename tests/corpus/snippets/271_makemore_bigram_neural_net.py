# after: Karpathy nn-zero-to-hero "makemore part 1" (bigram counts, then the one-layer net: one_hot, logits.exp(), probs[torch.arange(num), ys].log().mean(), W.grad = None)
# expect: match
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "mia", "amelia"]
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
n = len(stoi)

N = torch.zeros((n, n), dtype=torch.int32)
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1
P = (N + 1).float()
P /= P.sum(1, keepdims=True)
log_likelihood = 0.0
count = 0
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        log_likelihood += torch.log(P[stoi[ch1], stoi[ch2]])
        count += 1
print(f"{log_likelihood=}")
print(f"{-log_likelihood/count}")

xs, ys = [], []
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print("number of examples: ", num)

g = torch.Generator().manual_seed(2147483647)
W = torch.randn((n, n), generator=g, requires_grad=True)
for k in range(20):
    xenc = F.one_hot(xs, num_classes=n).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
    W.grad = None
    loss.backward()
    W.data += -50 * W.grad
print(loss.item())

ix = 0
out = []
while True:
    xenc = F.one_hot(torch.tensor([ix]), num_classes=n).float()
    p = (xenc @ W).exp()
    p = p / p.sum(1, keepdims=True)
    ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
    out.append(itos[ix])
    if ix == 0 or len(out) > 10:
        break
print("".join(out))

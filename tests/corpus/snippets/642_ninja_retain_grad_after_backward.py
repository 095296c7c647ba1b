# after: learners doing Karpathy's "Becoming a Backprop Ninja" who move the `for t in [...]: t.retain_grad()` loop below loss.backward(), so every intermediate's .grad is still None when cmp('logprobs', dlogprobs, logprobs) compares with torch.all(dt == t.grad)
# expect: explained grad-is-none
# mentions: logprobs | retain_grad() | loss.backward()
import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(2147483647)
n, n_embd, vocab_size = 4, 5, 7
Xb = torch.randn(n, n_embd, generator=g)
Yb = torch.tensor([1, 3, 0, 6])
W = torch.randn(n_embd, vocab_size, generator=g, requires_grad=True)
b = torch.randn(vocab_size, generator=g, requires_grad=True)


def cmp(s, dt, t):
    ex = torch.all(dt == t.grad).item()
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f"{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}")


logits = Xb @ W + b
logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum**-1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()
loss.backward()
for t in [logprobs, probs, counts_sum_inv, counts_sum, counts, norm_logits, logit_maxes, logits]:
    t.retain_grad()

dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
cmp("logprobs", dlogprobs, logprobs)

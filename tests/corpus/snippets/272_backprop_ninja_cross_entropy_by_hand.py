# after: Karpathy nn-zero-to-hero "becoming a backprop ninja" (cross entropy written out by hand, dlogits from softmax, cmp() against torch's grads)
# expect: match
import torch
import torch.nn.functional as F


def cmp(s, dt, t):
    ex = torch.all(dt == t.grad).item()
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f"{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}")


g = torch.Generator().manual_seed(42)
n = 8
logits = torch.randn(n, 5, generator=g, requires_grad=True)
Yb = torch.randint(0, 5, (n,), generator=g)

logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum**-1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()

for t in [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes]:
    t.retain_grad()
loss.backward()
print(loss.item(), F.cross_entropy(logits, Yb).item())

dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
cmp("logprobs", dlogprobs, logprobs)
dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
dlogits /= n
cmp("logits", dlogits, logits)

# after: "The log-sum-exp trick" blog posts (a naive log(sum(exp(x))) overflowing to inf with nan gradients for logits near 1000, the max-subtraction fix, torch.logsumexp, F.log_softmax vs log(softmax) underflowing to -inf, cross_entropy on huge logits)
# expect: match
import torch
import torch.nn.functional as F

logits = torch.tensor([1000.0, 1001.0, 999.0], requires_grad=True)
naive = torch.log(torch.exp(logits).sum())
naive.backward()
print(naive, logits.grad)

logits.grad = None
c = logits.max()
stable = c + torch.log(torch.exp(logits - c).sum())
stable.backward()
print(stable, logits.grad)

logits.grad = None
lse = torch.logsumexp(logits, dim=0)
lse.backward()
print(lse, logits.grad, torch.equal(lse, stable))

scores = torch.tensor([[0.0, -200.0, 50.0]], requires_grad=True)
log_p_naive = torch.log(torch.softmax(scores, dim=1))
log_p = F.log_softmax(scores, dim=1)
print(log_p_naive, log_p)
log_p_naive[0, 1].backward()
print(scores.grad)
scores.grad = None
log_p[0, 1].backward()
print(scores.grad)

big = torch.tensor([[1e4, -1e4], [-1e4, 1e4]], requires_grad=True)
target = torch.tensor([1, 1])
loss = F.cross_entropy(big, target)
loss.backward()
print(loss, big.grad)

def softmax_naive(x):
    e = x.exp()
    return e / e.sum(dim=-1, keepdim=True)
half = torch.tensor([10.0, 11.0, 12.0], dtype=torch.float16)
print(softmax_naive(half * 1000), torch.softmax(half * 1000, -1))

# after: PyTorch docs torch.distributions (kl_divergence between two Categoricals, Bernoulli(probs).log_prob, Independent(Normal) over the event dim)
# expect: match
import torch
from torch.distributions import Bernoulli, Categorical, Independent, Normal, kl_divergence

logits_p = torch.tensor([0.5, 1.0, -1.0], requires_grad=True)
logits_q = torch.tensor([0.0, 0.0, 0.0])
kl = kl_divergence(Categorical(logits=logits_p), Categorical(logits=logits_q))
kl.backward()
print(kl, logits_p.grad)

p = torch.tensor([0.2, 0.7], requires_grad=True)
b = Bernoulli(probs=p)
lp = b.log_prob(torch.tensor([1.0, 0.0])).sum()
lp.backward()
print(lp, p.grad)

loc = torch.zeros(3, requires_grad=True)
mvn = Independent(Normal(loc, torch.ones(3)), 1)
value = torch.tensor([0.5, -0.5, 1.0])
logp = mvn.log_prob(value)
logp.backward()
print(mvn.batch_shape, mvn.event_shape, logp, loc.grad)

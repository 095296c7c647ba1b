# after: torch.distributions docs and "normalizing flows with torch.distributions" posts (TransformedDistribution(Normal(0, 1), [AffineTransform(loc, log_scale.exp()), SigmoidTransform()]) with the loc and log-scale learned by maximum likelihood, rsample for a reparameterized sample, the transform's log_abs_det_jacobian, ComposeTransform and .inv)
# expect: refused
# mentions: torch.distributions.transforms
import torch
from torch.distributions import Normal, TransformedDistribution
from torch.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform

torch.manual_seed(16)
data = torch.sigmoid(torch.randn(50) * 0.5 + 1.0)
loc = torch.zeros(1, requires_grad=True)
log_scale = torch.zeros(1, requires_grad=True)
opt = torch.optim.Adam([loc, log_scale], lr=0.1)
for step in range(6):
    dist = TransformedDistribution(
        Normal(torch.zeros(1), torch.ones(1)),
        [AffineTransform(loc, log_scale.exp()), SigmoidTransform()],
    )
    nll = -dist.log_prob(data.unsqueeze(-1)).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    print(step, nll.item(), loc.item(), log_scale.exp().item())

sample = dist.rsample((4,))
print(sample.shape, sample.requires_grad)
sample.sum().backward()
print(loc.grad, log_scale.grad)

t = ComposeTransform([AffineTransform(1.0, 2.0), ExpTransform()])
x = torch.tensor([0.0, 0.5, -1.0])
y = t(x)
print(y, t.inv(y), t.log_abs_det_jacobian(x, y))
lognormal = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
print(lognormal.log_prob(torch.tensor([0.5, 1.0, 2.0])))

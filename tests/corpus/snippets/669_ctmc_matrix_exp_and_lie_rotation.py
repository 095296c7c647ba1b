# after: continuous-time Markov chain and Lie-group examples (a rate matrix Q built from softplus of free parameters with rows summing to zero via Q - torch.diag(Q.sum(dim=1)), transition probabilities P(t) = torch.linalg.matrix_exp(Q * t), a log-likelihood of observed transitions fitted by gradient descent; a rotation R = matrix_exp(K) of a skew-symmetric K from an axis-angle vector fitted to a target rotation, with torch.linalg.det(R) staying 1)
# expect: match
import torch
import torch.nn.functional as F

torch.manual_seed(12)
n_states = 3
raw = torch.randn(n_states, n_states, requires_grad=True)
transitions = torch.tensor([[0, 1], [1, 2], [2, 0], [0, 0], [1, 1], [2, 2], [0, 2]])
dt = torch.tensor(0.5)
opt = torch.optim.SGD([raw], lr=0.2)
off_diag = 1 - torch.eye(n_states)
for step in range(4):
    rates = F.softplus(raw) * off_diag
    Q = rates - torch.diag(rates.sum(dim=1))
    P = torch.linalg.matrix_exp(Q * dt)
    nll = -torch.log(P[transitions[:, 0], transitions[:, 1]]).sum()
    opt.zero_grad()
    nll.backward()
    opt.step()
    print(step, nll.item(), P.sum(dim=1))
print(raw.grad)


def hat(v):
    zero = torch.zeros((), dtype=v.dtype)
    return torch.stack([
        torch.stack([zero, -v[2], v[1]]),
        torch.stack([v[2], zero, -v[0]]),
        torch.stack([-v[1], v[0], zero]),
    ])


omega = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
target = torch.linalg.matrix_exp(hat(torch.tensor([0.5, 0.4, -0.2])))
opt = torch.optim.Adam([omega], lr=0.1)
for step in range(6):
    R = torch.linalg.matrix_exp(hat(omega))
    loss = (R - target).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item(), torch.linalg.det(R).item(), omega)

# after: LBFGS closure example from torch.optim docs, counting evaluations with nonlocal
# expect: match
import torch


def fit():
    w = torch.zeros(2, requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = torch.tensor([1.0, 2.0, 3.0])
    opt = torch.optim.LBFGS([w], lr=0.5, max_iter=20)
    evals = 0

    def closure():
        nonlocal evals
        evals += 1
        opt.zero_grad()
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        return loss
    for _ in range(3):
        opt.step(closure)
    return w, evals


w, evals = fit()
print(w, evals > 0)

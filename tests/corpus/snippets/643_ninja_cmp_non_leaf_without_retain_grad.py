# after: learners checking a hand-written backward against torch with a cmp helper (torch.allclose(dt, t.grad), (dt - t.grad).abs().max().item()) on a hidden activation `hpreact` that was never given .retain_grad(), so t.grad is None inside cmp
# expect: explained grad-is-none
# mentions: hpreact | hpreact.retain_grad()
import torch

torch.manual_seed(42)
x = torch.randn(6, 3)
y = torch.randn(6, 1)
W1 = torch.randn(3, 4, requires_grad=True)
W2 = torch.randn(4, 1, requires_grad=True)


def cmp(s, dt, t):
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f"{s:10s} | approximate: {str(app):5s} | maxdiff: {maxdiff}")


hpreact = x @ W1
h = torch.tanh(hpreact)
pred = h @ W2
loss = ((pred - y) ** 2).mean()
loss.backward()

dpred = 2 * (pred - y) / pred.numel()
dh = dpred @ W2.T
dhpreact = (1.0 - h**2) * dh
dW1 = x.T @ dhpreact
cmp("W1", dW1, W1)
cmp("hpreact", dhpreact, hpreact)

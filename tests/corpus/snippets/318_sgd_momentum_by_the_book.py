# after: PyTorch docs torch.optim.SGD (momentum=0.9, nesterov, weight_decay) next to the update written by hand, as in "SGD with momentum from scratch" posts
# expect: match
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
X = torch.randn(8, 3)
y = torch.randn(8)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=1e-2, nesterov=True)

w_hand = w.detach().clone()
buf = None
for step in range(4):
    opt.zero_grad()
    loss = ((X @ w - y) ** 2).mean()
    loss.backward()
    g = w.grad.clone()
    opt.step()

    g = g + 1e-2 * w_hand
    buf = g.clone() if buf is None else 0.9 * buf + g
    w_hand = w_hand - 0.1 * (g + 0.9 * buf)
    print(step, loss.item())
print(w)
print(w_hand)
print(torch.allclose(w.detach(), w_hand, atol=1e-6))

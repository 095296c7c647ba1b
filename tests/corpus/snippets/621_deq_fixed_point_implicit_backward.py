# after: the NeurIPS "Deep Implicit Layers" tutorial, chapter 4 (DEQFixedPoint: the fixed point z* = f(z*, x) found by forward_iteration under torch.no_grad, z = self.f(z, x) once more to re-engage the tape, z0 = z.clone().detach().requires_grad_(), f0 = self.f(z0, x), and a hook on z solving the backward fixed point g = autograd.grad(f0, z0, g, retain_graph=True)[0] + grad by the same solver; a small tanh layer f with spectral scaling, trained two SGD steps, its gradient checked against backprop through the unrolled iteration)
# expect: match
import torch
import torch.autograd as autograd
import torch.nn as nn

torch.manual_seed(8)


class TanhFixedPointLayer(nn.Module):
    def __init__(self, out_features):
        super().__init__()
        self.linear = nn.Linear(out_features, out_features, bias=False)
        with torch.no_grad():
            self.linear.weight.mul_(0.5 / torch.linalg.matrix_norm(self.linear.weight, ord=2))

    def forward(self, z, x):
        return torch.tanh(self.linear(z) + x)


def forward_iteration(f, x0, max_iter=60, tol=1e-6):
    f0 = f(x0)
    res = []
    for k in range(max_iter):
        x = f0
        f0 = f(x)
        res.append((f0 - x).norm().item() / (1e-5 + f0.norm().item()))
        if res[-1] < tol:
            break
    return f0, res


class DEQFixedPoint(nn.Module):
    def __init__(self, f, solver, **kwargs):
        super().__init__()
        self.f = f
        self.solver = solver
        self.kwargs = kwargs

    def forward(self, x):
        with torch.no_grad():
            z, self.forward_res = self.solver(lambda z: self.f(z, x), torch.zeros_like(x), **self.kwargs)
        z = self.f(z, x)
        z0 = z.clone().detach().requires_grad_()
        f0 = self.f(z0, x)

        def backward_hook(grad):
            g, self.backward_res = self.solver(
                lambda y: autograd.grad(f0, z0, y, retain_graph=True)[0] + grad, grad, **self.kwargs
            )
            return g

        z.register_hook(backward_hook)
        return z


f = TanhFixedPointLayer(6)
deq = DEQFixedPoint(f, forward_iteration, tol=1e-7, max_iter=80)
head = nn.Linear(6, 2)
model = nn.Sequential(nn.Linear(3, 6), deq, head)
X = torch.randn(5, 3)
targets = torch.tensor([0, 1, 1, 0, 1])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X), targets)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6f}", len(deq.forward_res), len(deq.backward_res))

opt.zero_grad()
loss = nn.functional.cross_entropy(model(X), targets)
loss.backward()
implicit = f.linear.weight.grad.clone()
f.linear.weight.grad = None
inp = model[0](X)
z = torch.zeros_like(inp)
for _ in range(80):
    z = f(z, inp)
unrolled_loss = nn.functional.cross_entropy(head(z), targets)
unrolled_loss.backward()
print(torch.allclose(implicit, f.linear.weight.grad, atol=1e-4))

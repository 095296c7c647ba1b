# after: PyTorch docs torch.no_grad / torch.enable_grad (used as decorators; enable_grad inside a no_grad block turns recording back on)
# expect: match
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)

@torch.no_grad()
def evaluate(x):
    return x * 2

@torch.enable_grad()
def doubler(x):
    return x * 2

y = evaluate(x)
print(y.requires_grad)
with torch.no_grad():
    z = doubler(x)
    with torch.enable_grad():
        w = x ** 2
    u = x * 3
print(z.requires_grad, w.requires_grad, u.requires_grad)
(z.sum() + w.sum()).backward()
print(x.grad)
print(torch.is_grad_enabled())

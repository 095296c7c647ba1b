# after: d2l.ai 2.5 exercises "Let f(x) = sin(x). Plot f and df/dx without exploiting that f'(x) = cos(x)" (the plot's data, printed)
# expect: match
import numpy as np
import torch

x = torch.linspace(-np.pi, np.pi, 9, requires_grad=True)
y = torch.sin(x)
y.sum().backward()

print(torch.allclose(x.grad, torch.cos(x)))
xs = x.detach().numpy()
ys = y.detach().numpy()
dys = x.grad.numpy()
for a, b, c in zip(xs, ys, dys):
    print(f"x={a:+.3f}  f(x)={b:+.3f}  df/dx={c:+.3f}")

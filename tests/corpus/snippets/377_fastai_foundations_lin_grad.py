# after: fast.ai course part 2 (2022) notebook 03_backprop "The forward and backward passes" (lin, relu as clamp_min, mse, lin_grad storing gradients in a .g attribute on each tensor, then checked against autograd on clones made with requires_grad_)
# expect: match
import torch
from torch import tensor

torch.manual_seed(42)
x_train = torch.randn(50, 20)
y_train = torch.randint(0, 10, (50,)).float()
n, m = x_train.shape
nh = 16

w1 = torch.randn(m, nh)
b1 = torch.zeros(nh)
w2 = torch.randn(nh, 1)
b2 = torch.zeros(1)

def lin(x, w, b): return x@w + b
def relu(x): return x.clamp_min(0.)
def mse(output, targ): return (output[:,0]-targ).pow(2).mean()

def lin_grad(inp, out, w, b):
    # grad of matmul with respect to input
    inp.g = out.g @ w.t()
    w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
    b.g = out.g.sum(0)

def forward_and_backward(inp, targ):
    # forward pass:
    l1 = lin(inp, w1, b1)
    l2 = relu(l1)
    out = lin(l2, w2, b2)
    diff = out[:,0]-targ
    loss = diff.pow(2).mean()
    # backward pass:
    out.g = 2.*diff[:,None] / inp.shape[0]
    lin_grad(l2, out, w2, b2)
    l1.g = (l1>0).float() * l2.g
    lin_grad(inp, l1, w1, b1)
    return loss

print(forward_and_backward(x_train, y_train))

def get_grad(x): return x.g.clone()
chks = w1,w2,b1,b2,x_train
grads = w1g,w2g,b1g,b2g,ig = tuple(map(get_grad, chks))

def mkgrad(x): return x.clone().requires_grad_(True)
ptgrads = w12,w22,b12,b22,xt2 = tuple(map(mkgrad, chks))

def forward(inp, targ):
    l1 = lin(inp, w12, b12)
    l2 = relu(l1)
    out = lin(l2, w22, b22)
    return mse(out, targ)

loss = forward(xt2, y_train)
loss.backward()
for a,b in zip(grads, ptgrads):
    print(torch.allclose(a, b.grad, rtol=1e-3, atol=1e-5), (a - b.grad).abs().max().item())
print(hasattr(w1, 'g'), w1.g.shape, x_train.g.shape)

# after: fast.ai course part 2 notebook 03_backprop "Refactor model" (Relu, Lin and Mse classes with __call__ and backward, a Model running the layers in reverse, then the Module base class with forward/bwd and the nn.Module version)
# expect: match
import torch
from torch import nn

torch.manual_seed(1)
x_train = torch.randn(40, 12)
y_train = torch.randn(40)
n, m = x_train.shape
nh = 8
w1 = torch.randn(m, nh) / m**0.5
b1 = torch.zeros(nh)
w2 = torch.randn(nh, 1) / nh**0.5
b2 = torch.zeros(1)

def lin(x, w, b): return x@w + b
def mse(output, targ): return (output[:,0]-targ).pow(2).mean()

class Module():
    def __call__(self, *args):
        self.args = args
        self.out = self.forward(*args)
        return self.out
    def forward(self): raise Exception('not implemented')
    def backward(self): self.bwd(self.out, *self.args)
    def bwd(self): raise Exception('not implemented')

class Relu(Module):
    def forward(self, inp): return inp.clamp_min(0.)
    def bwd(self, out, inp): inp.g = (inp>0).float() * out.g

class Lin(Module):
    def __init__(self, w, b): self.w,self.b = w,b
    def forward(self, inp): return inp@self.w + self.b
    def bwd(self, out, inp):
        inp.g = out.g @ self.w.t()
        self.w.g = inp.t() @ out.g
        self.b.g = out.g.sum(0)

class Mse(Module):
    def forward (self, inp, targ): return (inp.squeeze() - targ).pow(2).mean()
    def bwd(self, out, inp, targ): inp.g = 2*(inp.squeeze()-targ).unsqueeze(-1) / targ.shape[0]

class Model():
    def __init__(self, w1, b1, w2, b2):
        self.layers = [Lin(w1,b1), Relu(), Lin(w2,b2)]
        self.loss = Mse()
    def __call__(self, x, targ):
        for l in self.layers: x = l(x)
        return self.loss(x, targ)
    def backward(self):
        self.loss.backward()
        for l in reversed(self.layers): l.backward()

model = Model(w1, b1, w2, b2)
loss = model(x_train, y_train)
model.backward()
print(loss, w1.g.sum(), b2.g)

class Linear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.w = torch.randn(n_in,n_out).requires_grad_()
        self.b = torch.zeros(n_out).requires_grad_()
    def forward(self, inp): return inp@self.w + self.b

class TorchModel(nn.Module):
    def __init__(self, n_in, nh, n_out):
        super().__init__()
        self.layers = [nn.Linear(n_in,nh), nn.ReLU(), nn.Linear(nh,n_out)]
    def __call__(self, x, targ):
        for l in self.layers: x = l(x)
        return torch.nn.functional.mse_loss(x, targ[:,None])

tm = TorchModel(m, nh, 1)
with torch.no_grad():
    tm.layers[0].weight.copy_(w1.t())
    tm.layers[0].bias.copy_(b1)
    tm.layers[2].weight.copy_(w2.t())
    tm.layers[2].bias.copy_(b2)
tloss = tm(x_train, y_train)
tloss.backward()
l0 = tm.layers[0]
print(torch.allclose(l0.weight.grad.t(), w1.g, atol=1e-6), torch.allclose(tm.layers[2].bias.grad, b2.g))
print(len(list(tm.parameters())), Linear(3, 2).w.requires_grad)

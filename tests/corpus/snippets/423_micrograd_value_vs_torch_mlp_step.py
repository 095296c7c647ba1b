# after: Karpathy "building micrograd" lecture (a Value class with +, *, tanh, exp, pow and topological backward, the lecture's neuron o = tanh(x1*w1 + x2*w2 + b) checked against torch.Tensor([...]).double(), then one SGD step of a 3-layer MLP in both, compared number by number)
# expect: match
import math
import random
import torch

class Value:
    def __init__(self, data, _children=(), _op='', label=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')
        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')
        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = Value(self.data**other, (self,), f'**{other}')
        def _backward():
            self.grad += other * (self.data ** (other - 1)) * out.grad
        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other**-1

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __radd__(self, other):
        return self + other

    def tanh(self):
        x = self.data
        t = (math.exp(2*x) - 1)/(math.exp(2*x) + 1)
        out = Value(t, (self, ), 'tanh')
        def _backward():
            self.grad += (1 - t**2) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        x = self.data
        out = Value(math.exp(x), (self, ), 'exp')
        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()
        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()

x1 = Value(2.0, label='x1'); x2 = Value(0.0, label='x2')
w1 = Value(-3.0, label='w1'); w2 = Value(1.0, label='w2')
b = Value(6.8813735870195432, label='b')
n = x1*w1 + x2*w2 + b
e = (2*n).exp()
o = (e - 1) / (e + 1)
o.backward()
print(o, x1.grad, w1.grad, x2.grad, w2.grad)

tx1 = torch.Tensor([2.0]).double(); tx1.requires_grad = True
tx2 = torch.Tensor([0.0]).double(); tx2.requires_grad = True
tw1 = torch.Tensor([-3.0]).double(); tw1.requires_grad = True
tw2 = torch.Tensor([1.0]).double(); tw2.requires_grad = True
tb = torch.Tensor([6.8813735870195432]).double(); tb.requires_grad = True
tn = tx1*tw1 + tx2*tw2 + tb
to = torch.tanh(tn)
print(to.data.item())
to.backward()
print('---')
print('x2', tx2.grad.item())
print('w2', tw2.grad.item())
print('x1', tx1.grad.item())
print('w1', tw1.grad.item())
print(abs(tx1.grad.item() - x1.grad) < 1e-12, abs(tw1.grad.item() - w1.grad) < 1e-12)

class Neuron:
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1,1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1,1))
    def __call__(self, x):
        act = sum((wi*xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh()
    def parameters(self):
        return self.w + [self.b]

class Layer:
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]
    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs
    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]

class MLP:
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i+1]) for i in range(len(nouts))]
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

random.seed(1337)
mlp = MLP(3, [4, 4, 1])
xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
ys = [1.0, -1.0, -1.0, 1.0]

W = [torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=torch.double, requires_grad=True) for layer in mlp.layers]
B = [torch.tensor([n.b.data for n in layer.neurons], dtype=torch.double, requires_grad=True) for layer in mlp.layers]

ypred = [mlp(x) for x in xs]
loss = sum((yout - ygt)**2 for ygt, yout in zip(ys, ypred))
for p in mlp.parameters():
    p.grad = 0.0
loss.backward()

h = torch.tensor(xs, dtype=torch.double)
for Wl, Bl in zip(W, B):
    h = torch.tanh(h @ Wl.T + Bl)
tloss = ((h.squeeze(1) - torch.tensor(ys, dtype=torch.double)) ** 2).sum()
tloss.backward()
print(loss.data, tloss.item(), abs(loss.data - tloss.item()) < 1e-12)
micro = [p.grad for p in mlp.layers[0].neurons[0].parameters()]
print([round(g, 10) for g in micro])
print([round(g, 10) for g in W[0].grad[0].tolist() + [B[0].grad[0].item()]])
for p in mlp.parameters():
    p.data += -0.05 * p.grad
with torch.no_grad():
    for t in W + B:
        t -= 0.05 * t.grad
print(mlp.layers[0].neurons[0].w[0].data, W[0][0, 0].item())

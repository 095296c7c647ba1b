# after: Karpathy micrograd lecture (the same tiny MLP in torch: Neuron/Layer/MLP classes, parameters(), p.grad = None, p.data += -0.05 * p.grad)
# expect: match
import random

import torch

random.seed(1337)
torch.manual_seed(1337)


class Neuron:
    def __init__(self, nin):
        self.w = torch.tensor([random.uniform(-1, 1) for _ in range(nin)], dtype=torch.double, requires_grad=True)
        self.b = torch.tensor(random.uniform(-1, 1), dtype=torch.double, requires_grad=True)

    def __call__(self, x):
        act = (self.w * x).sum() + self.b
        return act.tanh()

    def parameters(self):
        return [self.w, self.b]


class Layer:
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]

    def __call__(self, x):
        outs = torch.stack([n(x) for n in self.neurons])
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MLP:
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i + 1]) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


xs = torch.tensor([[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]], dtype=torch.double)
ys = [1.0, -1.0, -1.0, 1.0]
n = MLP(3, [4, 4, 1])
print(len(n.parameters()))
for k in range(20):
    ypred = [n(x) for x in xs]
    loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
    for p in n.parameters():
        p.grad = None
    loss.backward()
    for p in n.parameters():
        p.data += -0.05 * p.grad
print(k, loss.item())
print([round(y.item(), 4) for y in ypred])

# after: micrograd README "Neuron" as a plain class with __call__ and __repr__ on torch tensors
# expect: match
import torch
torch.set_printoptions(precision=3)
class Neuron:
    def __init__(self, nin):
        self.w = torch.randn(nin, requires_grad=True)
        self.b = torch.zeros((), requires_grad=True)
    def __call__(self, x):
        return torch.tanh(self.w @ x + self.b)
    def parameters(self):
        return [self.w, self.b]
    def __repr__(self):
        return f"Neuron({len(self.w)})"
n = Neuron(3)
out = n(torch.tensor([1.0, -2.0, 3.0]))
out.backward()
print(n, [p.grad for p in n.parameters()])

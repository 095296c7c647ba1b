# after: PyTorch docs "Autograd mechanics: backward hooks" and Q&A "register_hook to inspect gradients"
# expect: match
import torch

grads = {}


def save_grad(name):
    def hook(grad):
        grads[name] = grad
    return hook


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.register_hook(save_grad('y'))
z = y.pow(2).sum()
z.backward()
print(grads['y'])
h = x.register_hook(lambda g: g * 10)
w = (x * x).sum()
x.grad = None
w.backward()
print(x.grad)
h.remove()

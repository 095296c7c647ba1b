# after: PyTorch docs torch.Tensor.register_hook (double the gradient; a hook on an intermediate; remove the handle)
# expect: match
import torch

v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()  # removes the hook

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x.exp()
seen = []


def save_grad(grad):
    seen.append(grad.clone())


y.register_hook(save_grad)
z = (y * 3).sum()
z.backward()
print(seen[0])
print(x.grad)

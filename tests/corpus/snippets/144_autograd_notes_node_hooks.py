# after: PyTorch docs "Autograd mechanics", Backward Hooks execution (hooks on a grad_fn node)
# expect: match
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.mul(2)
seen = []


def prehook(grad_outputs):
    seen.append(("pre", grad_outputs[0].tolist()))


def hook(grad_inputs, grad_outputs):
    seen.append(("post", grad_inputs[0].tolist(), grad_outputs[0].tolist()))
    return tuple(None if g is None else g * 10 for g in grad_inputs)


h1 = b.grad_fn.register_prehook(prehook)
h2 = b.grad_fn.register_hook(hook)
out = b.sum()
out.backward(retain_graph=True)
print(seen)
h2.remove()
a.grad = None
out.backward()
print(a.grad)

# after: PyTorch docs "Autograd mechanics", Hooks for saved tensors (y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook))
# expect: match
import torch


def pack_hook(x):
    print("Packing", x)
    return x.detach()


def unpack_hook(x):
    print("Unpacking", x)
    return x


x = torch.randn(5, requires_grad=True)
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
print(y.grad_fn._saved_self)
y.sum().backward()
print(x.grad)

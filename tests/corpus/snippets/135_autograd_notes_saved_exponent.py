# after: PyTorch docs "Autograd mechanics", Saved tensors (x.pow(2) saves self and the exponent, x.exp() its result)
# expect: match
import torch

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))  # True
print(x is y.grad_fn._saved_self)  # True
print(y.grad_fn._saved_exponent)  # 2

x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))  # True
print(y is y.grad_fn._saved_result)  # False

w = torch.randn(3, 4, requires_grad=True)
z = (w @ torch.ones(4, 2)).sum()
print(z.grad_fn.next_functions[0][0]._saved_self_sym_sizes)
z.backward()
print(w.grad)

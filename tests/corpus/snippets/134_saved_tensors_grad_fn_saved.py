# after: PyTorch tutorial "Hooks for autograd saved tensors" (reading what y.grad_fn saved: _saved_self, _saved_other, _saved_result)
# expect: match
import torch

a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
y = a * b

print(y.grad_fn._saved_self)
print(y.grad_fn._saved_other)


def f(x):
    return x * x


x = torch.randn(5, requires_grad=True)
y = f(f(f(x)))

a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
y = a * b

print(y.grad_fn._saved_self is a)  # True
print(y.grad_fn._saved_other is b)  # True

a = torch.randn(5, requires_grad=True)
y = torch.exp(a)
print(y.grad_fn._saved_result.equal(y))  # True
print(y.grad_fn._saved_result is y)  # False

# after: "Understanding the autograd graph" posts (grad_fn.next_functions walked by hand, AccumulateGrad's .variable, set_printoptions(precision=2))
# expect: match
import torch
torch.set_printoptions(precision=2)
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
print(Q)
print(Q.grad_fn)
print(Q.grad_fn.next_functions)
def walk(fn, depth=0):
    print("  " * depth + type(fn).__name__)
    for nxt, _ in fn.next_functions:
        if nxt is not None:
            walk(nxt, depth + 1)
walk(Q.grad_fn)
acc = Q.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(acc.variable is a, torch.equal(acc.variable, a))
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad, -2 * b == b.grad)
torch.set_printoptions(profile="default")
print(a.grad / 7)

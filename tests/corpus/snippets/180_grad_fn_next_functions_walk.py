# after: "Understanding the graph: grad_fn.next_functions" blog posts (walk the graph by hand)
# expect: match
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = (x * w).sin().sum()


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + fn.name())
    for next_fn, _ in fn.next_functions:
        walk(next_fn, depth + 1)


walk(y.grad_fn)
print(y.grad_fn.next_functions[0][0].name())
acc = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(acc.variable is x)
y.backward()
print(x.grad, w.grad)

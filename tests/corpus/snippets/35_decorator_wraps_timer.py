# after: Real Python "Primer on Python decorators" timer with functools.wraps around a training step
# expect: match
import functools
import time
import torch

calls = 0


def count_calls(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        global calls
        calls += 1
        return func(*args, **kwargs)
    return wrapper


@count_calls
def step(w, x, y, lr):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        w.grad.zero_()
    return loss.item()


w = torch.zeros(3, requires_grad=True)
x = torch.randn(20, 3)
y = x @ torch.tensor([1.0, -2.0, 0.5])
start = time.perf_counter()
for i in range(100):
    last = step(w, x, y, 0.1)
elapsed = time.perf_counter() - start
print(calls, round(last, 6), elapsed >= 0)

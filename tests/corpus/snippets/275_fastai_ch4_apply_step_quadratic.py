# after: fast.ai book chapter 4 "An End-to-End SGD Example" (speed of a roller coaster, f(t, params), mse, apply_step with params.grad = None)
# expect: match
import torch

torch.manual_seed(42)
time = torch.arange(0, 20).float()
speed = torch.randn(20) * 3 + 0.75 * (time - 9.5) ** 2 + 1


def f(t, params):
    a, b, c = params
    return a * (t**2) + (b * t) + c


def mse(preds, targets):
    return ((preds - targets) ** 2).mean()


params = torch.randn(3).requires_grad_()
orig_params = params.clone()
preds = f(time, params)
loss = mse(preds, speed)
print(loss)
loss.backward()
print(params.grad)
print(params.grad * 1e-5)
lr = 1e-5
params.data -= lr * params.grad.data
params.grad = None
preds = f(time, params)
print(mse(preds, speed))


def apply_step(params, prn=True):
    preds = f(time, params)
    loss = mse(preds, speed)
    loss.backward()
    params.data -= lr * params.grad.data
    params.grad = None
    if prn:
        print(loss.item())
    return preds


for i in range(10):
    apply_step(params)
print(params, orig_params)

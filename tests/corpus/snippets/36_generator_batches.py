# after: "Deep Learning with PyTorch" book style minibatch generator with yield and manual SGD
# expect: match
import torch


def batches(x, y, size):
    for start in range(0, len(x), size):
        yield x[start:start + size], y[start:start + size]


t_c = torch.tensor([0.5, 14.0, 15.0, 28.0, 11.0, 8.0, 3.0, -4.0, 6.0, 13.0, 21.0])
t_u = torch.tensor([35.7, 55.9, 58.2, 81.9, 56.3, 48.9, 33.9, 21.8, 48.4, 60.4, 68.4])
t_un = 0.1 * t_u


def model(t_u, w, b):
    return w * t_u + b


def loss_fn(t_p, t_c):
    squared_diffs = (t_p - t_c)**2
    return squared_diffs.mean()


params = torch.tensor([1.0, 0.0], requires_grad=True)
learning_rate = 1e-2
for epoch in range(1, 301):
    for xb, yb in batches(t_un, t_c, 4):
        if params.grad is not None:
            params.grad.zero_()
        t_p = model(xb, *params)
        loss = loss_fn(t_p, yb)
        loss.backward()
        with torch.no_grad():
            params -= learning_rate * params.grad
    if epoch % 100 == 0:
        print('Epoch %d, Loss %f' % (epoch, float(loss)))
print(params)

# after: fastai book ch. 4 "mnist_basics" (init_params, linear1, sigmoid loss, calc_grad, train_epoch)
# expect: match
import torch

torch.manual_seed(42)
train_x = torch.randn(60, 16)
train_y = (train_x[:, :1] > 0).float()


def init_params(size, std=1.0):
    return (torch.randn(size) * std).requires_grad_()


weights = init_params((16, 1))
bias = init_params(1)


def linear1(xb):
    return xb @ weights + bias


def mnist_loss(predictions, targets):
    predictions = predictions.sigmoid()
    return torch.where(targets == 1, 1 - predictions, predictions).mean()


def calc_grad(xb, yb, model):
    preds = model(xb)
    loss = mnist_loss(preds, yb)
    loss.backward()


def train_epoch(model, lr, params):
    for i in range(0, 60, 20):
        xb, yb = train_x[i:i + 20], train_y[i:i + 20]
        calc_grad(xb, yb, model)
        for p in params:
            p.data -= p.grad * lr
            p.grad.zero_()


def batch_accuracy(xb, yb):
    preds = xb.sigmoid()
    correct = (preds > 0.5) == yb
    return correct.float().mean()


def validate_epoch(model):
    accs = [batch_accuracy(model(train_x[i:i + 20]), train_y[i:i + 20]) for i in range(0, 60, 20)]
    return round(torch.stack(accs).mean().item(), 4)


lr = 1.
params = weights, bias
for i in range(20):
    train_epoch(linear1, lr, params)
    print(validate_epoch(linear1), end=' ')

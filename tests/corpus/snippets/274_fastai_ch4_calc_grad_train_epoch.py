# after: fast.ai book chapter 4 "MNIST basics" (init_params, linear1, mnist_loss with torch.where, calc_grad, train_epoch, batch_accuracy)
# expect: match
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)
train_x = torch.cat([torch.rand(24, 16) + 0.3, torch.rand(24, 16) - 0.3])
train_y = torch.tensor([1] * 24 + [0] * 24).unsqueeze(1)
dset = TensorDataset(train_x, train_y)
dl = DataLoader(dset, batch_size=12, shuffle=True)


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
    for xb, yb in dl:
        calc_grad(xb, yb, model)
        for p in params:
            p.data -= p.grad * lr
            p.grad.zero_()


def batch_accuracy(xb, yb):
    preds = xb.sigmoid()
    correct = (preds > 0.5) == yb
    return correct.float().mean()


def validate_epoch(model):
    accs = [batch_accuracy(model(xb), yb) for xb, yb in dl]
    return round(torch.stack(accs).mean().item(), 4)


params = weights, bias
lr = 1.0
for i in range(5):
    train_epoch(linear1, lr, params)
    print(validate_epoch(linear1), end=" ")
print()

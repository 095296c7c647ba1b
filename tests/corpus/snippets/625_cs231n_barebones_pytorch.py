# after: CS231n assignment 2 "PyTorch.ipynb", Part II "Barebones PyTorch" (flatten(x) = x.view(N, -1), two_layer_fc(x, params) with F.relu(x.mm(w1)).mm(w2), three_layer_convnet with F.conv2d(x, conv_w1, conv_b1, padding=2), random_weight(shape) with Kaiming normalization torch.randn(shape) * np.sqrt(2. / fan_in) and w.requires_grad = True, zero_weight, check_accuracy_part2 under torch.no_grad with scores.max(1), train_part2 updating with w -= learning_rate * w.grad then w.grad.zero_() inside torch.no_grad)
# expect: match
import numpy as np
import torch
import torch.nn.functional as F

dtype = torch.float32
device = torch.device("cpu")
torch.manual_seed(12)


def flatten(x):
    N = x.shape[0]
    return x.view(N, -1)


def two_layer_fc(x, params):
    x = flatten(x)
    w1, w2 = params
    x = F.relu(x.mm(w1))
    x = x.mm(w2)
    return x


def three_layer_convnet(x, params):
    conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
    scores = None
    x = F.relu(F.conv2d(x, conv_w1, conv_b1, padding=2))
    x = F.relu(F.conv2d(x, conv_w2, conv_b2, padding=1))
    scores = flatten(x).mm(fc_w) + fc_b
    return scores


def random_weight(shape):
    if len(shape) == 2:
        fan_in = shape[0]
    else:
        fan_in = np.prod(shape[1:])
    w = torch.randn(shape, device=device, dtype=dtype) * np.sqrt(2.0 / fan_in)
    w.requires_grad = True
    return w


def zero_weight(shape):
    return torch.zeros(shape, device=device, dtype=dtype, requires_grad=True)


def check_accuracy_part2(x, y, model_fn, params):
    with torch.no_grad():
        scores = model_fn(x, params)
        _, preds = scores.max(1)
        num_correct = (preds == y).sum()
        num_samples = preds.size(0)
        acc = float(num_correct) / num_samples
        print("Got %d / %d correct (%.2f%%)" % (num_correct, num_samples, 100 * acc))


def train_part2(model_fn, params, learning_rate, loader):
    for t, (x, y) in enumerate(loader):
        x = x.to(device=device, dtype=dtype)
        y = y.to(device=device, dtype=torch.long)
        scores = model_fn(x, params)
        loss = F.cross_entropy(scores, y)
        loss.backward()
        with torch.no_grad():
            for w in params:
                w -= learning_rate * w.grad
                w.grad.zero_()
        print("Iteration %d, loss = %.4f" % (t, loss.item()))


x = torch.zeros((64, 50), dtype=dtype)
w1 = torch.zeros((50, 30), dtype=dtype)
w2 = torch.zeros((30, 10), dtype=dtype)
print(two_layer_fc(x, [w1, w2]).size())

images = torch.randn(4, 8, 3, 6, 6)
labels = torch.randint(0, 10, (4, 8))
loader = list(zip(images, labels))
channel_1, channel_2 = 4, 3
conv_w1 = random_weight((channel_1, 3, 5, 5))
conv_b1 = zero_weight((channel_1,))
conv_w2 = random_weight((channel_2, channel_1, 3, 3))
conv_b2 = zero_weight((channel_2,))
fc_w = random_weight((channel_2 * 6 * 6, 10))
fc_b = zero_weight(10)
params = [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b]
train_part2(three_layer_convnet, params, 3e-3, loader)
check_accuracy_part2(images[0], labels[0], three_layer_convnet, params)

hidden_layer_size = 20
fc1 = random_weight((3 * 6 * 6, hidden_layer_size))
fc2 = random_weight((hidden_layer_size, 10))
train_part2(two_layer_fc, [fc1, fc2], 1e-2, loader)

# after: CS231n PyTorch tutorial, "Part II. Barebones PyTorch" (flatten, two_layer_fc with F.relu and mm, random_weight with Kaiming normalization, zero_weight, train_part2 updating w -= learning_rate * w.grad under torch.no_grad and w.grad.zero_())
# expect: match
import torch
import torch.nn.functional as F

dtype = torch.float32


def flatten(x):
    N = x.shape[0]
    return x.view(N, -1)


def two_layer_fc(x, params):
    x = flatten(x)
    w1, w2 = params
    x = F.relu(x.mm(w1))
    x = x.mm(w2)
    return x


def random_weight(shape):
    if len(shape) == 2:
        fan_in = shape[0]
    else:
        fan_in = torch.prod(torch.tensor(shape[1:]))
    w = torch.randn(shape, dtype=dtype) * (2. / fan_in) ** 0.5
    w.requires_grad = True
    return w


def zero_weight(shape):
    return torch.zeros(shape, dtype=dtype, requires_grad=True)


def check_accuracy_part2(x, y, model_fn, params):
    with torch.no_grad():
        scores = model_fn(x, params)
        _, preds = scores.max(1)
        num_correct = (preds == y).sum()
        num_samples = preds.size(0)
        acc = float(num_correct) / num_samples
        print('Got %d / %d correct (%.2f%%)' % (num_correct, num_samples, 100 * acc))


def train_part2(model_fn, params, learning_rate, batches):
    for t, (x, y) in enumerate(batches):
        scores = model_fn(x, params)
        loss = F.cross_entropy(scores, y)
        loss.backward()
        with torch.no_grad():
            for w in params:
                w -= learning_rate * w.grad
                w.grad.zero_()
        print('Iteration %d, loss = %.4f' % (t, loss.item()))


torch.manual_seed(0)
hidden_layer_size = 42
x = torch.zeros((64, 3, 4, 4), dtype=dtype)
print(two_layer_fc(x, [zero_weight((48, hidden_layer_size)), zero_weight((hidden_layer_size, 10))]).size())
w1 = random_weight((3 * 4 * 4, hidden_layer_size))
w2 = random_weight((hidden_layer_size, 10))
batches = [(torch.randn(16, 3, 4, 4), torch.randint(0, 10, (16,))) for _ in range(4)]
train_part2(two_layer_fc, [w1, w2], 1e-2, batches)
check_accuracy_part2(batches[0][0], batches[0][1], two_layer_fc, [w1, w2])
print(w1.grad.abs().sum(), w2.norm())

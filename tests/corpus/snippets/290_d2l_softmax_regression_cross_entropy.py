# after: Dive into Deep Learning "Softmax Regression Implementation from Scratch" (softmax(X), cross_entropy(y_hat, y) = -torch.log(y_hat[range(len(y_hat)), y]), accuracy, sgd with torch.no_grad())
# expect: match
import torch

torch.manual_seed(0)
num_inputs, num_outputs = 6, 3
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


X = torch.normal(0, 1, (2, 5))
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


features = torch.normal(0, 1, (30, num_inputs))
labels = torch.randint(0, num_outputs, (30,))
for epoch in range(3):
    for i in range(0, 30, 10):
        Xb, yb = features[i : i + 10], labels[i : i + 10]
        l = cross_entropy(net(Xb), yb)
        l.sum().backward()
        sgd([W, b], 0.1, Xb.shape[0])
    print(f"epoch {epoch + 1}, loss {float(cross_entropy(net(features), labels).mean()):f}")

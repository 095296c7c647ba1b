# after: d2l.ai 3.7 "Weight Decay" from scratch (init_params, l2_penalty, train(lambd) with a hand-written sgd), synthetic data as in the book
# expect: match
import torch

n_train, n_test, num_inputs, batch_size = 20, 100, 200, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05


def synthetic_data(w, b, num_examples):  #@save
    """Generate y = Xw + b + noise."""
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


train_features, train_labels = synthetic_data(true_w, true_b, n_train)
test_features, test_labels = synthetic_data(true_w, true_b, n_test)


def init_params():
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


def linreg(X, w, b):  #@save
    """The linear regression model."""
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):  #@save
    """Squared loss."""
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):  #@save
    """Minibatch stochastic gradient descent."""
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def train(lambd):
    w, b = init_params()
    net, loss = lambda X: linreg(X, w, b), squared_loss
    num_epochs, lr = 10, 0.003
    for epoch in range(num_epochs):
        for i in range(0, n_train, batch_size):
            X = train_features[i:i + batch_size]
            y = train_labels[i:i + batch_size]
            # The L2 norm penalty term has been added, and broadcasting
            # makes `l2_penalty(w)` a vector whose length is `batch_size`
            l = loss(net(X), y) + lambd * l2_penalty(w)
            l.sum().backward()
            sgd([w, b], lr, batch_size)
        if (epoch + 1) % 5 == 0:
            with torch.no_grad():
                print(epoch + 1, float(loss(net(test_features), test_labels).mean()))
    print('L2 norm of w:', torch.norm(w).item())


train(lambd=0)
train(lambd=3)

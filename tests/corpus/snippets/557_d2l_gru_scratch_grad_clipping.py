# after: Dive into Deep Learning 10.2 "Gated Recurrent Units (GRU)" from scratch (get_params with normal(shape) * 0.01 and three() triples, init_gru_state returning a tuple, gru(inputs, state, params) with torch.sigmoid((X @ W_xz) + (H @ W_hz) + b_z), H_tilda and H = Z * H + (1 - Z) * H_tilda, outputs concatenated with torch.cat, F.one_hot(X.T, vocab_size).type(torch.float32), grad_clipping with norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params)) and p.grad[:] *= theta / norm, updater = d2l.sgd)
# expect: match
import math

import torch
from torch.nn import functional as F

torch.manual_seed(8)
vocab_size, num_hiddens = 10, 6


def get_params(vocab_size, num_hiddens):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(size=shape) * 0.01

    def three():
        return (normal((num_inputs, num_hiddens)), normal((num_hiddens, num_hiddens)), torch.zeros(num_hiddens))

    W_xz, W_hz, b_z = three()
    W_xr, W_hr, b_r = three()
    W_xh, W_hh, b_h = three()
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs)
    params = [W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_gru_state(batch_size, num_hiddens):
    return (torch.zeros((batch_size, num_hiddens)),)


def gru(inputs, state, params):
    W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q = params
    (H,) = state
    outputs = []
    for X in inputs:
        Z = torch.sigmoid((X @ W_xz) + (H @ W_hz) + b_z)
        R = torch.sigmoid((X @ W_xr) + (H @ W_hr) + b_r)
        H_tilda = torch.tanh((X @ W_xh) + ((R * H) @ W_hh) + b_h)
        H = Z * H + (1 - Z) * H_tilda
        Y = H @ W_hq + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size):
        return self.init_state(batch_size, self.num_hiddens)


def grad_clipping(net, theta):
    params = net.params
    norm = torch.sqrt(sum(torch.sum((p.grad**2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


net = RNNModelScratch(vocab_size, num_hiddens, get_params, init_gru_state, gru)
loss = torch.nn.CrossEntropyLoss()
corpus = torch.randint(0, vocab_size, (60,))
batch_size, num_steps, lr = 2, 5, 1.0
for epoch in range(3):
    state = net.begin_state(batch_size)
    total, n = 0.0, 0
    for i in range(0, 40, num_steps * batch_size):
        X = corpus[i : i + batch_size * num_steps].reshape(batch_size, num_steps)
        Y = corpus[i + 1 : i + 1 + batch_size * num_steps].reshape(batch_size, num_steps)
        for s in state:
            s.detach_()
        y = Y.T.reshape(-1)
        y_hat, state = net(X, state)
        l = loss(y_hat, y.long()).mean()
        l.backward()
        grad_clipping(net, 1)
        sgd(net.params, lr, batch_size=1)
        total += l.item() * y.numel()
        n += y.numel()
    print(f"epoch {epoch}: perplexity {math.exp(total / n):.4f}")


def predict(prefix, num_preds, net):
    state = net.begin_state(batch_size=1)
    outputs = [prefix[0]]
    get_input = lambda: torch.tensor([outputs[-1]]).reshape((1, 1))
    for y in prefix[1:]:
        _, state = net(get_input(), state)
        outputs.append(y)
    for _ in range(num_preds):
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return outputs


print(predict([3, 1, 4], 5, net))

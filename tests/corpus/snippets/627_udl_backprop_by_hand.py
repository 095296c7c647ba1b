# after: Prince "Understanding Deep Learning" notebook 7.2 "Backpropagation" (K = 3 hidden layers of width D = 5, all_weights and all_biases as lists, forward_pass storing all_f and all_h with ReLU, least_squares_loss and d_loss_d_output, the backward pass building all_dl_dweights and all_dl_dbiases layer by layer with the indicator function of the pre-activations, then checked against finite differences; here the same network in torch checked against autograd too)
# expect: match
import numpy as np
import torch

torch.manual_seed(14)
K, D, D_i, D_o = 3, 5, 1, 1
all_weights = [None] * (K + 1)
all_biases = [None] * (K + 1)
all_weights[0] = torch.randn(D, D_i, dtype=torch.float64)
all_weights[-1] = torch.randn(D_o, D, dtype=torch.float64)
all_biases[0] = torch.randn(D, 1, dtype=torch.float64)
all_biases[-1] = torch.randn(D_o, 1, dtype=torch.float64)
for layer in range(1, K):
    all_weights[layer] = torch.randn(D, D, dtype=torch.float64)
    all_biases[layer] = torch.randn(D, 1, dtype=torch.float64)
for p in all_weights + all_biases:
    p.requires_grad_()


def ReLU(preactivation):
    return preactivation.clip(0.0)


def indicator_function(x):
    x_in = x.detach().clone()
    x_in[x_in >= 0] = 1
    x_in[x_in < 0] = 0
    return x_in


def forward_pass(net_input, all_weights, all_biases):
    all_f = [None] * (K + 1)
    all_h = [None] * (K + 1)
    all_h[0] = net_input
    for layer in range(K):
        all_f[layer] = all_biases[layer] + all_weights[layer] @ all_h[layer]
        all_h[layer + 1] = ReLU(all_f[layer])
    all_f[K] = all_biases[K] + all_weights[K] @ all_h[K]
    return all_f[K], all_f, all_h


def least_squares_loss(net_output, y):
    return torch.sum((net_output - y) * (net_output - y))


def d_loss_d_output(net_output, y):
    return 2 * (net_output - y)


def backward_pass(all_weights, all_biases, all_f, all_h, y):
    all_dl_dweights = [None] * (K + 1)
    all_dl_dbiases = [None] * (K + 1)
    all_dl_df = [None] * (K + 1)
    all_dl_dh = [None] * (K + 1)
    all_dl_df[K] = d_loss_d_output(all_f[K], y).detach()
    for layer in range(K, -1, -1):
        all_dl_dbiases[layer] = all_dl_df[layer].clone()
        all_dl_dweights[layer] = all_dl_df[layer] @ all_h[layer].detach().T
        all_dl_dh[layer] = all_weights[layer].detach().T @ all_dl_df[layer]
        if layer > 0:
            all_dl_df[layer - 1] = indicator_function(all_f[layer - 1]) * all_dl_dh[layer]
    return all_dl_dweights, all_dl_dbiases


net_input = torch.ones(D_i, 1, dtype=torch.float64) * 1.2
y = torch.ones(D_o, 1, dtype=torch.float64) * 20.0
net_output, all_f, all_h = forward_pass(net_input, all_weights, all_biases)
loss = least_squares_loss(net_output, y)
all_dl_dweights, all_dl_dbiases = backward_pass(all_weights, all_biases, all_f, all_h, y)
loss.backward()

delta_fd = 0.000001
for layer in range(K + 1):
    dl_dbias = torch.zeros_like(all_dl_dbiases[layer])
    with torch.no_grad():
        for row in range(all_biases[layer].shape[0]):
            all_biases_copy = [b.clone() for b in all_biases]
            all_biases_copy[layer][row] += delta_fd
            network_output_1, *_ = forward_pass(net_input, all_weights, all_biases_copy)
            network_output_2, *_ = forward_pass(net_input, all_weights, all_biases)
            dl_dbias[row] = (least_squares_loss(network_output_1, y) - least_squares_loss(network_output_2, y)) / delta_fd
    print("Layer %d, bias: finite differences close: %s, autograd equal: %s" % (
        layer, np.allclose(dl_dbias.numpy(), all_dl_dbiases[layer].numpy(), rtol=1e-3),
        torch.allclose(all_biases[layer].grad, all_dl_dbiases[layer])))
    print("Layer %d, weight autograd equal: %s" % (layer, torch.allclose(all_weights[layer].grad, all_dl_dweights[layer])))

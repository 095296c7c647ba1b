# after: UvA Deep Learning tutorial 3 "Activation Functions", "Finding dead neurons in ReLU networks" (a BaseNetwork of Linear+ReLU layers, a forward pass over a batch under torch.no_grad counting neurons that are never active, then a model made to die with a big negative bias and its zero gradients)
# expect: match
import torch
import torch.nn as nn


class BaseNetwork(nn.Module):
    def __init__(self, act_fn, input_size=16, num_classes=4, hidden_sizes=[32, 16, 8]):
        super().__init__()
        layers = []
        layer_sizes = [input_size] + hidden_sizes
        for layer_index in range(1, len(layer_sizes)):
            layers += [nn.Linear(layer_sizes[layer_index - 1], layer_sizes[layer_index]), act_fn]
        layers += [nn.Linear(layer_sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


@torch.no_grad()
def measure_number_dead_neurons(net, data):
    neurons_dead = [
        torch.ones(layer.weight.shape[0], dtype=torch.bool)
        for layer in net.layers[:-1] if isinstance(layer, nn.Linear)
    ]
    net.eval()
    layer_index = 0
    x = data
    for layer in net.layers[:-1]:
        x = layer(x)
        if isinstance(layer, nn.ReLU):
            neurons_dead[layer_index] = torch.logical_and(neurons_dead[layer_index], (x == 0).all(dim=0))
            layer_index += 1
    number_neurons_dead = [t.sum().item() for t in neurons_dead]
    print("Number of dead neurons:", number_neurons_dead)
    print("In percentage:", ", ".join([f"{(100.0 * num_dead / tens.shape[0]):4.2f}%" for tens, num_dead in zip(neurons_dead, number_neurons_dead)]))


torch.manual_seed(42)
net_relu = BaseNetwork(act_fn=nn.ReLU())
data = torch.randn(64, 16)
measure_number_dead_neurons(net_relu, data)

with torch.no_grad():
    net_relu.layers[2].bias.fill_(-10.0)
measure_number_dead_neurons(net_relu, data)
net_relu.train()
loss = net_relu(data).pow(2).mean()
loss.backward()
print(net_relu.layers[2].weight.grad.abs().sum(), net_relu.layers[0].weight.grad.abs().sum())
print(net_relu.layers[4].weight.grad.abs().sum(), net_relu.layers[6].bias.grad)

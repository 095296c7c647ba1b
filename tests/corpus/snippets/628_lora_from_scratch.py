# after: Sebastian Raschka's "Code LoRA from Scratch" (LoRALayer with self.A = torch.nn.Parameter(torch.randn(in_dim, rank) * std_dev) with std_dev = 1 / torch.sqrt(torch.tensor(rank).float()), self.B = torch.nn.Parameter(torch.zeros(rank, out_dim)), forward alpha * (x @ self.A @ self.B); LinearWithLoRA adding it to a frozen nn.Linear; replacing the layers of a small MLP with functools.partial, freezing with param.requires_grad = False, count_parameters, training only the LoRA weights; then LinearWithDoRA-style merged weight W + alpha * A @ B checked equal)
# expect: match
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(15)


class LoRALayer(torch.nn.Module):
    def __init__(self, in_dim, out_dim, rank, alpha):
        super().__init__()
        std_dev = 1 / torch.sqrt(torch.tensor(rank).float())
        self.A = torch.nn.Parameter(torch.randn(in_dim, rank) * std_dev)
        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
        self.alpha = alpha

    def forward(self, x):
        x = self.alpha * (x @ self.A @ self.B)
        return x


class LinearWithLoRA(torch.nn.Module):
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(linear.in_features, linear.out_features, rank, alpha)

    def forward(self, x):
        return self.linear(x) + self.lora(x)


class MultilayerPerceptron(nn.Module):
    def __init__(self, num_features, num_hidden_1, num_hidden_2, num_classes):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(num_features, num_hidden_1),
            nn.ReLU(),
            nn.Linear(num_hidden_1, num_hidden_2),
            nn.ReLU(),
            nn.Linear(num_hidden_2, num_classes),
        )

    def forward(self, x):
        return self.layers(x)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_linear_layers(model):
    for child in model.children():
        if isinstance(child, nn.Linear):
            for param in child.parameters():
                param.requires_grad = False
        else:
            freeze_linear_layers(child)


model = MultilayerPerceptron(num_features=10, num_hidden_1=16, num_hidden_2=12, num_classes=3)
print(f"Total number of trainable parameters: {count_parameters(model):,}")
assign_lora = partial(LinearWithLoRA, rank=2, alpha=4)
model.layers[0] = assign_lora(model.layers[0])
model.layers[2] = assign_lora(model.layers[2])
model.layers[4] = assign_lora(model.layers[4])
freeze_linear_layers(model)
print(f"Total number of trainable parameters: {count_parameters(model):,}")
for name, param in model.named_parameters():
    print(f"{name}: {param.requires_grad}")

optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=0.01)
features = torch.randn(16, 10)
targets = torch.randint(0, 3, (16,))
for epoch in range(4):
    logits = model(features)
    loss = F.cross_entropy(logits, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"Epoch: {epoch + 1:03d} | Cost: {loss:.4f}")

layer = model.layers[0]
merged = layer.linear.weight + layer.lora.alpha * (layer.lora.A @ layer.lora.B).T
x = torch.randn(2, 10)
print(torch.allclose(layer(x), F.linear(x, merged, layer.linear.bias), atol=1e-6))
print(model.layers[0].linear.weight.grad, model.layers[0].lora.B.grad.shape)

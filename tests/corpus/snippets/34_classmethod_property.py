# after: "Python for ML" style config class with @classmethod, @property and a model factory
# expect: match
import torch
import torch.nn as nn


class Config:
    hidden = 8

    def __init__(self, inputs, outputs):
        self.inputs = inputs
        self.outputs = outputs

    @classmethod
    def small(cls):
        return cls(3, 1)

    @property
    def sizes(self):
        return (self.inputs, self.hidden, self.outputs)


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        a, h, b = config.sizes
        self.net = nn.Sequential(nn.Linear(a, h), nn.Tanh(), nn.Linear(h, b))

    @property
    def num_params(self):
        return sum(p.numel() for p in self.parameters())

    @staticmethod
    def describe():
        return "an MLP"

    def forward(self, x):
        return self.net(x)


cfg = Config.small()
model = MLP(cfg)
print(model.num_params, MLP.describe(), cfg.sizes)
x = torch.randn(5, 3)
loss = model(x).pow(2).mean()
loss.backward()
print(type(model) is MLP, isinstance(model, nn.Module))

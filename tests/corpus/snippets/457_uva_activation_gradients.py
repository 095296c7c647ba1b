# after: UvA Deep Learning tutorial 3 "Activation Functions" (ActivationFunction base class with a config dict, Sigmoid/Tanh/ReLU/LeakyReLU/ELU/Swish written by hand, get_grads with x.grad after out.sum().backward(), compared with torch's built-ins)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActivationFunction(nn.Module):
    def __init__(self):
        super().__init__()
        self.name = self.__class__.__name__
        self.config = {"name": self.name}


class Sigmoid(ActivationFunction):
    def forward(self, x):
        return 1 / (1 + torch.exp(-x))


class Tanh(ActivationFunction):
    def forward(self, x):
        x_exp, neg_x_exp = torch.exp(x), torch.exp(-x)
        return (x_exp - neg_x_exp) / (x_exp + neg_x_exp)


class ReLU(ActivationFunction):
    def forward(self, x):
        return x * (x > 0).float()


class LeakyReLU(ActivationFunction):
    def __init__(self, alpha=0.1):
        super().__init__()
        self.config["alpha"] = alpha

    def forward(self, x):
        return torch.where(x > 0, x, self.config["alpha"] * x)


class ELU(ActivationFunction):
    def forward(self, x):
        return torch.where(x > 0, x, torch.exp(x) - 1)


class Swish(ActivationFunction):
    def forward(self, x):
        return x * torch.sigmoid(x)


act_fn_by_name = {"sigmoid": Sigmoid, "tanh": Tanh, "relu": ReLU, "leakyrelu": LeakyReLU, "elu": ELU, "swish": Swish}
builtin = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": F.relu,
           "leakyrelu": lambda x: F.leaky_relu(x, 0.1), "elu": F.elu, "swish": F.silu}


def get_grads(act_fn, x):
    x = x.clone().requires_grad_()
    out = act_fn(x)
    out.sum().backward()
    return x.grad


x = torch.linspace(-5, 5, 11)
for name, cls in act_fn_by_name.items():
    act_fn = cls()
    y_grads = get_grads(act_fn, x)
    ref = get_grads(builtin[name], x)
    print(act_fn.config, y_grads)
    print(name, torch.allclose(y_grads, ref, atol=1e-6), (y_grads - ref).abs().max())

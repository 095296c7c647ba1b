# after: Stack Overflow "ValueError: optimizer got an empty parameter list" (layers kept in a plain Python list instead of nn.ModuleList)
# expect: explained empty-parameters
# mentions: `self.layers` | line 11 | self.layers = nn.ModuleList(...)
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return self.layers[-1](x)


model = MLP([4, 8, 8, 1])
print(len(list(model.parameters())))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

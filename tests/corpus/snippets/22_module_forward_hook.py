# after: PyTorch forum "How to get intermediate activations with register_forward_hook"
# expect: match
import torch
import torch.nn as nn

activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


class MyModel(nn.Module):
    def __init__(self):
        super(MyModel, self).__init__()
        self.fc1 = nn.Linear(4, 6)
        self.fc2 = nn.Linear(6, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        return self.fc2(x)


model = MyModel()
handle = model.fc1.register_forward_hook(get_activation('fc1'))
x = torch.randn(3, 4)
output = model(x)
print(activation['fc1'].shape)
handle.remove()
loss = output.pow(2).mean()
loss.backward()
g = model.fc2.weight.grad
print(g)

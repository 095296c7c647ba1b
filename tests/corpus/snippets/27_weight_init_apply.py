# after: Q&A "How to initialize weights in PyTorch" (model.apply with nn.init.xavier_uniform_)
# expect: match
import torch
import torch.nn as nn


def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)


net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
net.apply(init_weights)
for name, param in net.named_parameters():
    print(name, param.shape, param.requires_grad)
x = torch.ones(1, 2)
out = net(x).sum()
out.backward()
w0 = net[0].weight
print(w0.grad)

# after: PyTorch forums "How to initialize weights by hand" (copy_, fill_ and nn.init under torch.no_grad())
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
with torch.no_grad():
    net[0].weight.copy_(torch.eye(3))
    net[0].bias.fill_(0.1)
    net[2].weight.mul_(0.5)
nn.init.zeros_(net[2].bias)
nn.init.xavier_uniform_(net[2].weight)
print(net[0].weight.requires_grad, net[0].weight.is_leaf)
out = net(torch.tensor([[1.0, 2.0, 3.0]]))
out.backward()
print(net[0].weight.grad)
print(net[2].bias.grad)

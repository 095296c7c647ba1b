# after: PyTorch forum "predictions change every time I run the model" (model.eval() forgotten at test time, so Dropout still drops units; then eval() and train() toggled and compared)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(29)
net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(16, 1))
x = torch.randn(3, 4)
with torch.no_grad():
    first = net(x)
    second = net(x)
print(torch.equal(first, second), net.training)
net.eval()
with torch.no_grad():
    a = net(x)
    b = net(x)
print(torch.equal(a, b), net.training, net[2].training)
net.train()
out = net(x)
out.sum().backward()
print(out, (net[3].weight.grad == 0).sum().item())

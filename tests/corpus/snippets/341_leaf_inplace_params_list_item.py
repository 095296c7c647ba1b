# after: "neural network from scratch" notebooks (params = [W, b]; params[0].sub_(lr * params[0].grad) without no_grad)
# expect: explained leaf-inplace
# mentions: `params[0]` is a leaf | with torch.no_grad(): params[0].sub_(0.1 * params[0].grad)
import torch

torch.manual_seed(0)
W = torch.randn(3, 2, requires_grad=True)
b = torch.zeros(2, requires_grad=True)
params = [W, b]
x = torch.randn(5, 3)
loss = (x @ params[0] + params[1]).pow(2).mean()
loss.backward()
params[0].sub_(0.1 * params[0].grad)

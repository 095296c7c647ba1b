# after: PyTorch forum "Output 0 of BackwardHookFunctionBackward is a view and is being modified inplace" (gradient logging with register_full_backward_hook on every layer of a model that uses nn.ReLU(inplace=True))
# expect: explained view-inplace
# mentions: register_full_backward_hook | line 10 | inplace=True | nn.ReLU()
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 12), nn.ReLU(inplace=True), nn.Linear(12, 2))

    def forward(self, x):
        return self.features(x)

net = Net()
grad_log = {}
for name, layer in net.features.named_children():
    layer.register_full_backward_hook(lambda m, gin, gout, name=name: grad_log.setdefault(name, gout[0].norm().item()))
out = net(torch.randn(4, 6))
out.sum().backward()
print(grad_log)

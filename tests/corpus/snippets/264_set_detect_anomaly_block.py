# after: a debugging tutorial, "find where NaN gradients come from" with set_detect_anomaly as a block
# expect: match
import torch

with torch.autograd.set_detect_anomaly(True):
    a = torch.tensor([1.0, 4.0, 9.0], requires_grad=True)
    b = a.sqrt() * 2
    b.sum().backward()
print(a.grad, torch.is_anomaly_enabled())

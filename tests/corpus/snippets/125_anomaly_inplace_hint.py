# after: PyTorch forum answers to "modified by an inplace operation": "run with torch.autograd.set_detect_anomaly(True) to find the line"
# expect: explained saved-tensor-modified
import torch

torch.autograd.set_detect_anomaly(True)

w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
h = w.sigmoid()
out = h * 3
h.mul_(2)
out.sum().backward()

# after: Stack Overflow "Function 'SqrtBackward0' returned nan values in its 0th output" (detect_anomaly finds the sqrt of 0)
# expect: match
import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)
dist = torch.sqrt(x)
loss = dist.sum()
loss.backward()
print(x.grad)
dist = torch.sqrt(x + 1e-8)
x.grad = None
dist.sum().backward()
print(x.grad.isfinite().all())

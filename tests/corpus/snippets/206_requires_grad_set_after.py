# after: Stack Overflow "why is there no grad_fn" (requires_grad switched on after the computation that should be differentiated)
# expect: explained no-grad-to-compute
# mentions: `weights` | line 9 | line 10
import torch

inputs = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
weights = torch.tensor([0.5, -0.5])

prediction = (inputs @ weights).sum()
weights.requires_grad = True
prediction.backward()
print(weights.grad)

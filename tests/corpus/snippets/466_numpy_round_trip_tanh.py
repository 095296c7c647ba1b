# after: PyTorch forum "gradients lost after converting to numpy and back" (scores squashed with np.tanh on logits.detach().numpy(), wrapped again with torch.from_numpy, then a loss on them backpropagated)
# expect: explained no-grad-to-compute
# mentions: `scores` is computed through NumPy on line 11 | `loss`
import numpy as np
import torch

torch.manual_seed(2)
W = torch.randn(3, 4, requires_grad=True)
inputs = torch.randn(6, 3)
logits = inputs @ W
scores = torch.from_numpy(np.tanh(logits.detach().numpy()))
loss = (scores - 0.5).pow(2).mean()
loss.backward()
print(W.grad)

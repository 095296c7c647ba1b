# after: from-scratch MLP tutorials ("neural network from scratch in PyTorch": weights kept in a Python list made with torch.randn, requires_grad forgotten, the loss backpropagated)
# expect: explained no-grad-to-compute
# mentions: reads `w.grad` of each tensor in `weights` | made on line 7 | .requires_grad_()
import torch

torch.manual_seed(15)
weights = [torch.randn(3, 5) * 0.1, torch.randn(5, 1) * 0.1]
biases = [torch.zeros(5), torch.zeros(1)]
X = torch.randn(10, 3)
y = torch.randn(10, 1)
hidden = torch.relu(X @ weights[0] + biases[0])
pred = hidden @ weights[1] + biases[1]
loss = ((pred - y) ** 2).mean()
loss.backward()
for w in weights:
    w.data -= 0.1 * w.grad

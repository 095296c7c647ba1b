# after: PyTorch forum "modified by an inplace operation: output 0 of ExpBackward0" (an element of exp's output overwritten before backward)
# expect: explained saved-tensor-modified
# mentions: `y`
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()
y[0] = 0.0
loss = y.sum()
loss.backward()
print(x.grad)

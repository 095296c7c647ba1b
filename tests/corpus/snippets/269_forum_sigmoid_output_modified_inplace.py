# after: PyTorch forum "one of the variables needed for gradient computation has been modified by an inplace operation" (the output of sigmoid changed with +=)
# expect: explained saved-tensor-modified
# mentions: `out`
import torch

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
out = torch.sigmoid(x)
out += 1
loss = out.sum()
loss.backward()
print(x.grad)

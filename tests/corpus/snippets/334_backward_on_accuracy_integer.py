# after: PyTorch forum "element 0 of tensors does not require grad" (the number of correct predictions, a whole-number tensor, backpropagated as if it were the loss)
# expect: explained no-grad-to-compute
# mentions: `n_correct` | cross_entropy(scores, yb) | keep `scores.argmax(dim=1) == yb` for accuracy
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 3)
xb = torch.randn(8, 4)
yb = torch.randint(0, 3, (8,))
scores = net(xb)
n_correct = (scores.argmax(dim=1) == yb).sum()
n_correct.backward()

# after: PyTorch 0.3 tutorials using Variable and .data updates
# expect: match
import torch
from torch.autograd import Variable

x = Variable(torch.randn(5, 3), requires_grad=False)
y = Variable(torch.randn(5, 2), requires_grad=False)
w1 = Variable(torch.randn(3, 2), requires_grad=True)
for t in range(50):
    y_pred = x.mm(w1)
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    w1.data -= 1e-3 * w1.grad.data
    w1.grad.data.zero_()
print(loss.item())

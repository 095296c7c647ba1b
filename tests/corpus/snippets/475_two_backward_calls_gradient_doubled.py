# after: PyTorch forum "my gradients are twice as large as expected" (backward called twice with retain_graph=True and no zero_grad between, the gradient accumulating, checked against 2 * the first one)
# expect: match
import torch

torch.manual_seed(11)
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
loss = (w * x).sum() ** 2
loss.backward(retain_graph=True)
first = w.grad.clone()
loss.backward(retain_graph=True)
print(w.grad, first)
print(torch.allclose(w.grad, 2 * first))
w.grad.zero_()
loss.backward(retain_graph=True)
print(torch.equal(w.grad, first))

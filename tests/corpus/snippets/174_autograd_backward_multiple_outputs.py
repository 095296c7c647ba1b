# after: PyTorch docs torch.autograd.backward (several tensors with grad_tensors, inputs=)
# expect: match
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
a = x * w
b = (x ** 2).sum()
torch.autograd.backward([a, b], grad_tensors=[torch.ones(2), torch.tensor(2.0)])
print(x.grad, w.grad)

x.grad = None
w.grad = None
c = (x * w).sum()
c.backward(inputs=[w])
print(x.grad, w.grad)

# after: PyTorch "A Gentle Introduction to torch.autograd", "Computational Graph" and "Exclusion from the DAG" (a = torch.tensor([2., 3.], requires_grad=True), Q.grad_fn and its next_functions, is_leaf of every tensor, retain_grad on Q, a frozen tensor excluded from the DAG with requires_grad_(False) and detach())
# expect: match
import torch

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
Q.retain_grad()
print(Q.grad_fn, Q.grad_fn.next_functions[0][0], Q.is_leaf, a.is_leaf)
Q.sum().backward()
print(a.grad, b.grad, Q.grad)
c = b.detach()
d = b.detach().clone()
print(c.requires_grad, d.requires_grad, (c * a).requires_grad, (c * d).requires_grad)
b.requires_grad_(False)
R = (a * b).sum()
R.backward()
print(a.grad, b.grad, R.grad_fn.next_functions)

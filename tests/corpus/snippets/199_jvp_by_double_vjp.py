# after: "The double-vjp trick: forward-mode JVPs from reverse mode" blog posts (torch.autograd.grad twice through a dummy u)
# expect: match
import torch


def jvp(y, x, v):
    u = torch.zeros_like(y, requires_grad=True)
    g = torch.autograd.grad(y, x, grad_outputs=u, create_graph=True)
    return torch.autograd.grad(g, u, grad_outputs=v)


x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
A = torch.tensor([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])
y = torch.tanh(A @ x)
v = torch.tensor([1.0, 0.0, -1.0])
Jv, = jvp(y, x, v)
print(Jv)
J = torch.autograd.functional.jacobian(lambda t: torch.tanh(A @ t), x.detach())
print(torch.allclose(Jv, J @ v))

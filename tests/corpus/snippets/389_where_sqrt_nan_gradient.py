# after: PyTorch issue / forum "NaN gradient with torch.where" (torch.where(x > 0, x.sqrt(), 0) gives nan gradients for x <= 0 although that branch is not taken; the double-where fix; clamp then sqrt giving inf at 0; nan_to_num)
# expect: match
import torch

x = torch.tensor([-1.0, 0.0, 4.0, 9.0], requires_grad=True)
y = torch.where(x > 0, x.sqrt(), 0.)
y.sum().backward()
print(y)
print(x.grad)

x.grad = None
safe_x = torch.where(x > 0, x, torch.ones_like(x))
y = torch.where(x > 0, safe_x.sqrt(), torch.zeros_like(x))
y.sum().backward()
print(y)
print(x.grad)

x.grad = None
z = x.clamp(min=0).sqrt()
z.sum().backward()
print(z, x.grad)

x.grad = None
w = torch.where(x > 0, torch.log(x), torch.zeros_like(x))
w.sum().backward()
print(w, x.grad, torch.nan_to_num(x.grad))

x.grad = None
m = x > 0
v = torch.zeros_like(x)
v[m] = x[m].sqrt()
v.sum().backward()
print(v, x.grad)
print(torch.isnan(x.grad).any().item())

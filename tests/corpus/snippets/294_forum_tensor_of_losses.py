# after: PyTorch forum "torch.tensor([loss1, loss2]) has no grad_fn" (a list of losses turned into a new tensor, then stacked properly)
# expect: match
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
loss1 = (w * x).sum() ** 2
loss2 = (w - x).abs().sum()
copy = torch.tensor([loss1, loss2])
print(copy, copy.requires_grad, copy.dtype)
stacked = torch.stack([loss1, loss2])
print(stacked.grad_fn.__class__.__name__)
stacked.sum().backward()
print(w.grad)
print(torch.tensor([loss1.item(), 2]), torch.tensor([[loss1.detach()], [loss2.detach()]]).shape)

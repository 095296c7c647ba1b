# after: PyTorch docs torch.utils.checkpoint (a plain function of several tensors, use_reentrant=False, a keyword argument passed through)
# expect: match
import torch
from torch.utils.checkpoint import checkpoint

def attention(q, k, v, scale=1.0):
    scores = (q @ k.transpose(-2, -1)) * scale
    return scores.softmax(dim=-1) @ v

torch.manual_seed(0)
q = torch.randn(2, 3, 4, requires_grad=True)
k = torch.randn(2, 3, 4, requires_grad=True)
v = torch.randn(2, 3, 4, requires_grad=True)
out = checkpoint(attention, q, k, v, use_reentrant=False, scale=0.5)
loss = out.sum()
loss.backward()
print(out.grad_fn)
print(q.grad[0], v.grad.sum())

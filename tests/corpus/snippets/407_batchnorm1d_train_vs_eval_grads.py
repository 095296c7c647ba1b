# after: PyTorch forum "BatchNorm gives different gradients in train and eval mode" (nn.BatchNorm1d: batch statistics and running stats updated in train mode, running stats used in eval mode, momentum=None as a cumulative average, track_running_stats=False, the input gradient summing to zero in train mode)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(23)
bn = nn.BatchNorm1d(3)
x = (torch.randn(6, 3) * 2 + 1).requires_grad_()
w = torch.randn(6, 3)

bn.train()
out = bn(x)
(out * w).sum().backward()
print(out.mean(0), out.var(0, unbiased=False))
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
print(x.grad)
print(x.grad.sum(0))
print(bn.weight.grad, bn.bias.grad)

x.grad = None
bn.zero_grad()
bn.eval()
out_eval = bn(x)
(out_eval * w).sum().backward()
print(x.grad)
print(torch.allclose(x.grad, w * bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps)))

cum = nn.BatchNorm1d(2, momentum=None)
for i in range(3):
    cum(torch.randn(4, 2) + i)
print(cum.running_mean, cum.num_batches_tracked)

nostats = nn.BatchNorm1d(3, track_running_stats=False, affine=False)
nostats.eval()
y = nostats(x)
print(nostats.running_mean, y.mean(0))

seq = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
seq.train()
loss = seq(x.detach()).pow(2).mean()
loss.backward()
print(seq[1].running_mean, seq[0].weight.grad.sum())

# after: the forms tutorials paste: `from torch.distributions import Normal` (VAE code), `from torch.nn.utils.rnn import pad_sequence` (seq2seq), `from torch.autograd.function import once_differentiable` (Extending PyTorch), `with torch.autograd.detect_anomaly():` (forum advice)
# expect: match
import torch
import torch.nn as nn
from torch.autograd.function import once_differentiable
from torch.distributions import Normal
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


mu = torch.tensor([0.5, -1.0], requires_grad=True)
log_std = torch.tensor([0.1, 0.2], requires_grad=True)
q = Normal(mu, log_std.exp())
z = q.rsample()

seqs = [torch.randn(3, 2), torch.randn(1, 2)]
padded = pad_sequence(seqs, batch_first=True)
packed = pack_padded_sequence(padded, torch.tensor([3, 1]), batch_first=True)
rnn = nn.GRU(2, 2, batch_first=True)
out, h = rnn(packed)
unpacked, lengths = pad_packed_sequence(out, batch_first=True)

with torch.autograd.detect_anomaly():
    loss = Square.apply(z).sum() + q.log_prob(z).sum() + unpacked.pow(2).sum()
    loss.backward()
print(mu.grad, log_std.grad)

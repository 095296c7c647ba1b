# after: spectral-loss examples (torch.fft.rfft of a signal, magnitude loss, gradients through complex intermediates)
# expect: match
import torch
torch.manual_seed(0)
signal = torch.randn(16, requires_grad=True)
target = torch.randn(16)
spec = torch.fft.rfft(signal)
tspec = torch.fft.rfft(target)
loss = (spec.abs() - tspec.abs()).pow(2).mean() + (spec - tspec).abs().mean()
loss.backward()
print(loss, signal.grad[:4])
z = torch.complex(torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([0.5, -1.0]))
print(z.angle(), torch.view_as_real(z))

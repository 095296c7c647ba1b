# after: signal-processing notebooks in PyTorch (torch.fft.fft of a real signal gives a complex spectrum, rfft keeps the non-negative frequencies, rfftfreq, a loss on the magnitude, irfft round trip, a low-pass filter in the frequency domain with gradients back to the signal)
# expect: match
import math
import torch

torch.manual_seed(14)
n = 16
t = torch.arange(n) / n
signal = (torch.sin(2 * math.pi * 3 * t) + 0.5 * torch.sin(2 * math.pi * 5 * t)).requires_grad_()

F_full = torch.fft.fft(signal)
print(F_full.dtype, F_full.shape)
power = F_full.abs() ** 2
power[3].backward()
print(signal.grad)

signal.grad = None
R = torch.fft.rfft(signal)
freqs = torch.fft.rfftfreq(n, d=1 / n)
print(R.shape, freqs)
mag = R.abs()
print(mag.argmax().item(), freqs[mag.argmax()].item())
(mag[5] - 4.0).pow(2).backward()
print(signal.grad)

signal.grad = None
back = torch.fft.irfft(R.detach(), n=n)
print(torch.allclose(back, signal.detach(), atol=1e-5))
mask = (freqs < 4).to(R.dtype)
low = torch.fft.irfft(torch.fft.rfft(signal) * mask, n=n)
(low ** 2).mean().backward()
print(low)
print(signal.grad)

x = torch.randn(2, 8, requires_grad=True)
spec = torch.fft.rfft(x, norm="ortho")
energy = (spec.real ** 2 + spec.imag ** 2).sum()
energy.backward()
print(energy, (x ** 2).sum(), x.grad)

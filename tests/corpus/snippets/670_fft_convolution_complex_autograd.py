# after: "convolution theorem in PyTorch" posts (a circular convolution computed as torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(k), n=N) compared with F.conv1d on a circularly padded signal with the flipped kernel, a learned kernel fitted through the FFT path; torch.view_as_real of the spectrum for a loss on real and imaginary parts; the magnitude-phase split with .abs() and .angle(); complex tensors in the middle, real leaves at both ends)
# expect: match
import torch
import torch.nn.functional as F

torch.manual_seed(21)
N = 16
x = torch.randn(N)
k_true = torch.zeros(N)
k_true[:3] = torch.tensor([0.5, 0.3, 0.2])
y = torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(k_true), n=N)

padded = F.pad(x.view(1, 1, N), (2, 0), mode="circular")
direct = F.conv1d(padded, k_true[:3].flip(0).view(1, 1, 3)).view(N)
print(torch.allclose(y, direct, atol=1e-5))

kernel = torch.zeros(N, requires_grad=True)
opt = torch.optim.Adam([kernel], lr=0.05)
for step in range(30):
    pred = torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(kernel), n=N)
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, loss.item())
print(kernel.detach()[:4])

signal = torch.randn(N, requires_grad=True)
spec = torch.fft.rfft(signal)
print(spec.dtype, spec.shape)
ri = torch.view_as_real(spec)
print(ri.shape)
target_spec = torch.view_as_real(torch.fft.rfft(torch.sin(torch.arange(N) * 0.8)))
spec_loss = (ri - target_spec).pow(2).mean()
mag, phase = spec.abs(), spec.angle()
mag_loss = mag.log1p().sum()
(spec_loss + 0.1 * mag_loss).backward()
print(signal.grad)
print(phase[:3])

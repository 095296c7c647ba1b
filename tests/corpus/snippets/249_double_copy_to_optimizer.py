# after: PyTorch forum "can't optimize a non-leaf Tensor" (parameters converted to double after requires_grad=True)
# expect: explained optimize-non-leaf
# mentions: `coeffs` | coeffs = (torch.zeros(4).double()).requires_grad_()
import torch

coeffs = torch.zeros(4, requires_grad=True).double()
opt = torch.optim.Adam([coeffs], lr=0.01)

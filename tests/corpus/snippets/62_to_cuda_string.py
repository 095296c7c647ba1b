# after: tutorials that hard-code device = "cuda"
# expect: explained no-gpu
import torch

device = "cuda"
x = torch.ones(2, requires_grad=True)
y = x.to(device)

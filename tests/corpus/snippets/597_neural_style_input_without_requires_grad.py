# after: Neural Transfer questions "element 0 of tensors does not require grad" (the network frozen with requires_grad_(False) as the tutorial does, but input_img = content_img.clone() never given requires_grad_(True) before optim.LBFGS([input_img]))
# expect: explained no-grad-to-compute
# mentions: input_img | input_img.requires_grad_(True)
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
cnn = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU()).eval()
cnn.requires_grad_(False)
content_img = torch.rand(1, 3, 8, 8)
target = cnn(content_img).detach()
input_img = content_img.clone()
optimizer = optim.LBFGS([input_img])


def closure():
    optimizer.zero_grad()
    loss = F.mse_loss(cnn(input_img), target)
    loss.backward()
    return loss


optimizer.step(closure)

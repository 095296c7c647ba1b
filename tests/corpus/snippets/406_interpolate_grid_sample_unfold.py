# after: PyTorch docs F.interpolate / F.affine_grid + F.grid_sample (the "Spatial Transformer Networks" tutorial's sampling with a learned theta) / F.unfold and F.fold (convolution as a matrix product) / F.pixel_shuffle, each with gradients
# expect: match
import torch
import torch.nn.functional as F

torch.manual_seed(22)
img = torch.arange(16.0).view(1, 1, 4, 4).requires_grad_()
up = F.interpolate(img, scale_factor=2, mode='bilinear', align_corners=False)
up.sum().backward()
print(up.shape, img.grad)
img.grad = None
up2 = F.interpolate(img, size=(7, 7), mode='bilinear', align_corners=True)
up2[0, 0, 3, 3].backward()
print(up2[0, 0, 3, 3], img.grad)
img.grad = None
near = F.interpolate(img, scale_factor=0.5, mode='nearest')
near.sum().backward()
print(near, img.grad)

theta = torch.tensor([[[0.9, -0.1, 0.05], [0.1, 0.9, -0.05]]], requires_grad=True)
grid = F.affine_grid(theta, size=(1, 1, 4, 4), align_corners=False)
x = torch.randn(1, 1, 4, 4, requires_grad=True)
warped = F.grid_sample(x, grid, mode='bilinear', padding_mode='zeros', align_corners=False)
warped.pow(2).sum().backward()
print(warped)
print(theta.grad, x.grad.sum())

inp = torch.randn(1, 2, 5, 5, requires_grad=True)
w = torch.randn(3, 2, 3, 3, requires_grad=True)
inp_unf = F.unfold(inp, kernel_size=3)
out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2)
out = F.fold(out_unf, (3, 3), (1, 1))
ref = F.conv2d(inp, w)
print(inp_unf.shape, (out - ref).abs().max() < 1e-5)
out.sum().backward()
print(inp.grad.sum(), w.grad.sum())

ps = torch.randn(1, 4, 2, 2, requires_grad=True)
sh = F.pixel_shuffle(ps, 2)
(sh * torch.arange(16.0).view(1, 1, 4, 4)).sum().backward()
print(sh.shape, ps.grad)

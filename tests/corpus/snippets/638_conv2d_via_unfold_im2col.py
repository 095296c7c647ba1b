# after: "convolution as matrix multiplication" / im2col posts (inp_unf = F.unfold(inp, kernel_size, padding, stride), out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2), out = out_unf.view(N, C_out, H_out, W_out) or F.fold, compared with F.conv2d in value and in the gradients of the input and the weight; the torch.nn.Unfold docs example; and max pooling written with unfold)
# expect: match
import torch
import torch.nn.functional as F

torch.manual_seed(23)
inp = torch.randn(2, 3, 6, 6, requires_grad=True)
w = torch.randn(4, 3, 3, 3, requires_grad=True)
b = torch.randn(4, requires_grad=True)
stride, padding = 1, 1

inp_unf = F.unfold(inp, kernel_size=(3, 3), padding=padding, stride=stride)
print(inp_unf.shape)
out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2)
H_out = (6 + 2 * padding - 3) // stride + 1
out = out_unf.view(2, 4, H_out, H_out) + b.view(1, -1, 1, 1)
folded = F.fold(out_unf, (H_out, H_out), (1, 1))
print(torch.equal(folded + b.view(1, -1, 1, 1), out))
ref = F.conv2d(inp, w, b, stride=stride, padding=padding)
print((ref - out).abs().max() < 1e-5)

target = torch.randn_like(ref)
loss_unfold = ((out - target) ** 2).mean()
grads_unfold = torch.autograd.grad(loss_unfold, (inp, w, b))
loss_conv = ((ref - target) ** 2).mean()
grads_conv = torch.autograd.grad(loss_conv, (inp, w, b))
print([torch.allclose(g1, g2, atol=1e-5) for g1, g2 in zip(grads_unfold, grads_conv)])

unfold = torch.nn.Unfold(kernel_size=(2, 3))
inputs = torch.randn(2, 5, 3, 4)
output = unfold(inputs)
print(output.size())

x = torch.randn(1, 2, 4, 4, requires_grad=True)
patches = F.unfold(x, kernel_size=2, stride=2).view(1, 2, 4, -1)
pooled = patches.max(dim=2).values.view(1, 2, 2, 2)
pooled.sum().backward()
print(torch.equal(pooled, F.max_pool2d(x, 2)), x.grad)

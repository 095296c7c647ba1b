# after: Stack Overflow "One of the differentiated Tensors does not require grad" (torch.autograd.grad asked for the gradient with respect to the data)
# expect: explained input-no-grad
# mentions: `inputs` | inputs.requires_grad_()
import torch
import torch.nn as nn

net = nn.Linear(4, 1)
inputs = torch.randn(5, 4)
out = net(inputs).sum()
(saliency,) = torch.autograd.grad(out, inputs)

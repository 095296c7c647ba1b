# after: straight-through estimator posts (a RoundSTE autograd.Function passing the gradient through round(), the `x + (x.round() - x).detach()` trick, a BinaryConnect-style sign with hardtanh clipping of the gradient)
# expect: match
import torch
import torch.nn as nn

class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return torch.round(input)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.sign()

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input.abs() > 1] = 0
        return grad_input

torch.manual_seed(3)
x = torch.randn(6, requires_grad=True)
y = RoundSTE.apply(x * 4) / 4
y.pow(2).sum().backward()
print(y, x.grad)

x2 = x.detach().clone().requires_grad_(True)
y2 = (x2 * 4 + ((x2 * 4).round() - x2 * 4).detach()) / 4
y2.pow(2).sum().backward()
print(torch.equal(y, y2), torch.equal(x.grad, x2.grad))

plain = x.detach().clone().requires_grad_(True)
torch.round(plain * 4).sum().backward()
print(plain.grad)

class BinaryLinear(nn.Linear):
    def forward(self, input):
        return nn.functional.linear(input, SignSTE.apply(self.weight), self.bias)

layer = BinaryLinear(5, 2)
with torch.no_grad():
    layer.weight.mul_(3)
inp = torch.randn(4, 5)
out = layer(inp)
out.sum().backward()
print(out)
print(layer.weight.grad)
print((layer.weight.abs() > 1).sum().item(), (layer.weight.grad == 0).sum().item())

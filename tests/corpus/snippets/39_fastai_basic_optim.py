# after: fastai book ch. 4 BasicOptim class (step/zero_grad written by hand)
# expect: match
import torch
import torch.nn as nn


class BasicOptim:
    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr

    def step(self, *args, **kwargs):
        for p in self.params:
            p.data -= p.grad.data * self.lr

    def zero_grad(self, *args, **kwargs):
        for p in self.params:
            p.grad = None


linear_model = nn.Linear(8, 1)
opt = BasicOptim(linear_model.parameters(), 0.5)
xs = torch.randn(30, 8)
ys = (xs.sum(1, keepdim=True) > 0).float()
for epoch in range(30):
    preds = linear_model(xs).sigmoid()
    loss = torch.where(ys == 1, 1 - preds, preds).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
print(round(loss.item(), 5))
w = linear_model.weight

# after: PyTorch forum "my loss does not change" (opt.zero_grad(), then opt.step() before loss.backward() in the loop: every step finds the gradients just set to None, so the weights never change)
# expect: match warns step-without-gradients
# mentions: `opt.step()` on line 16 | every parameter of `opt` had `.grad` None | no weight changed
import torch
import torch.nn as nn

torch.manual_seed(28)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(10, 3)
y = x.sum(dim=1, keepdim=True)
w0 = model.weight.detach().clone()
for step in range(3):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    opt.step()
    loss.backward()
    print(step, loss.item(), torch.equal(model.weight, w0))
print(model.weight.grad)

# after: LBFGS questions "float() argument must be a string or a real number, not 'NoneType'" (the closure computes the loss and calls backward but forgets `return loss`)
# expect: explained closure-returns-none
# mentions: closure | return loss
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
x, y = torch.randn(10, 3), torch.randn(10, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5)


def closure():
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()


for step in range(3):
    optimizer.step(closure)
print(model.weight)

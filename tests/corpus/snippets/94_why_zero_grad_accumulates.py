# after: Stack Overflow "Why do we need to call zero_grad() in PyTorch?" (gradients accumulate across backward calls; gradient accumulation over micro-batches)
# expect: match
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

for i in range(3):
    y = (x * 2).sum()
    y.backward()
    print(i, x.grad)

x.grad.zero_()
for i in range(3):
    y = (x ** 2).sum()
    y.backward()
    print(i, x.grad)
    x.grad = None

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = torch.nn.CrossEntropyLoss()
inputs = torch.randn(12, 4)
labels = torch.randint(0, 2, (12,))
accumulation_steps = 3

optimizer.zero_grad()
for i, (xb, yb) in enumerate(zip(inputs.split(4), labels.split(4))):
    loss = loss_fn(model(xb), yb) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
print(model.weight, model.bias)

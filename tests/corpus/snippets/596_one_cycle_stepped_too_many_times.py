# after: OneCycleLR questions "Tried to step 11 times. The specified number of total steps is 10" (total_steps given as epochs while scheduler.step() is called once per batch)
# expect: explained scheduler-total-steps
# mentions: scheduler | total_steps
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
epochs, batches_per_epoch = 5, 2
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.5, total_steps=epochs * batches_per_epoch
)
x, y = torch.randn(4, 3), torch.randn(4, 1)
for epoch in range(epochs + 1):
    for batch in range(batches_per_epoch):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
    print(epoch, scheduler.get_last_lr())

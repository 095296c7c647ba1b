# after: Q&A "train_step helper with RMSprop and ExponentialLR"
# expect: match
import torch
def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()
model = torch.nn.Linear(1, 1)
opt = torch.optim.RMSprop(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
xs = torch.arange(10, dtype=torch.float32).unsqueeze(1)
ys = 3 * xs + 1
hist = []
for epoch in range(40):
    hist.append(train_step(model, opt, xs, ys))
    sched.step()
print(min(hist), sched.get_last_lr())

# after: training-loop posts on gradient accumulation (loss = loss / accumulation_steps, optimizer.step() every accumulation_steps micro-batches with (i + 1) % accumulation_steps == 0, clip_grad_value_ before the step) and on nn.init (orthogonal_ with gain=nn.init.calculate_gain('tanh'), xavier_normal_, kaiming_uniform_(nonlinearity='relu'), kaiming_normal_(mode='fan_out'), sparse_, dirac_ for a conv, eye_, constant_, zeros_, ones_ applied with model.apply(init_weights))
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(7)
model = nn.Sequential(
    nn.Conv2d(2, 2, 3, padding=1),
    nn.Flatten(),
    nn.Linear(2 * 4 * 4, 8),
    nn.Tanh(),
    nn.Linear(8, 8),
    nn.ReLU(),
    nn.Linear(8, 3),
)


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.dirac_(m.weight)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear):
        if m.in_features == 32:
            nn.init.orthogonal_(m.weight, gain=nn.init.calculate_gain("tanh"))
            nn.init.constant_(m.bias, 0.01)
        elif m.out_features == 8:
            nn.init.kaiming_uniform_(m.weight, nonlinearity="relu")
            nn.init.ones_(m.bias)
        else:
            nn.init.xavier_normal_(m.weight)
            nn.init.zeros_(m.bias)


model.apply(init_weights)
extra = torch.empty(6, 4)
nn.init.sparse_(extra, sparsity=0.5, std=0.1)
eye = torch.empty(3, 5)
nn.init.eye_(eye)
fan = torch.empty(4, 3, 2, 2)
nn.init.kaiming_normal_(fan, mode="fan_out", nonlinearity="relu")
print((extra == 0).sum(dim=0))
print(eye)
print(fan.std())

x = torch.zeros(1, 2, 4, 4)
x[0, 0, 1, 2] = 1.0
print(model[0](x).equal(x))

optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()
inputs = torch.randn(12, 2, 4, 4)
labels = torch.randint(0, 3, (12,))
accumulation_steps = 3
optimizer.zero_grad()
for i in range(6):
    batch = inputs[2 * i : 2 * i + 2]
    target = labels[2 * i : 2 * i + 2]
    loss = criterion(model(batch), target)
    loss = loss / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
        print("max grad", max(p.grad.abs().max().item() for p in model.parameters()))
        optimizer.step()
        optimizer.zero_grad()
print(model[6].weight)

# after: PyTorch docs "Autograd mechanics: Grad Modes" and the transfer-learning tutorial's train_model (with torch.set_grad_enabled(phase == 'train') around the forward, model.train()/model.eval() per phase, torch.enable_grad() inside a no_grad block, a function decorated with @torch.enable_grad())
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(14)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.25), nn.Linear(8, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
data = {phase: (torch.randn(6, 4), torch.randint(0, 2, (6,))) for phase in ['train', 'val']}
for epoch in range(2):
    for phase in ['train', 'val']:
        if phase == 'train':
            model.train()
        else:
            model.eval()
        inputs, labels = data[phase]
        optimizer.zero_grad()
        with torch.set_grad_enabled(phase == 'train'):
            outputs = model(inputs)
            _, preds = torch.max(outputs, 1)
            loss = criterion(outputs, labels)
            if phase == 'train':
                loss.backward()
                optimizer.step()
        print(epoch, phase, loss.item(), loss.requires_grad, torch.sum(preds == labels).item())

x = torch.tensor([1.0], requires_grad=True)
with torch.no_grad():
    with torch.enable_grad():
        y = x * 2
    z = x * 2
print(y.requires_grad, z.requires_grad)


@torch.enable_grad()
def doubler(x):
    return x * 2


with torch.no_grad():
    w = doubler(x)
print(w.requires_grad)
print(model[1].running_mean, model[1].num_batches_tracked)

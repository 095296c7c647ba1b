# after: fine-tuning tutorials (for param in backbone.parameters(): param.requires_grad_(False); a new head; the optimizer over the trainable ones only)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
head = nn.Linear(8, 3)
model = nn.Sequential(backbone, head)
for param in backbone.parameters():
    param.requires_grad_(False)
model[0][2].bias.requires_grad_(True)
trainable = [p for p in model.parameters() if p.requires_grad]
print(len(trainable), sum(p.numel() for p in trainable))
optimizer = torch.optim.SGD(trainable, lr=0.1)
x = torch.randn(4, 5)
y = torch.tensor([0, 2, 1, 0])
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
print(backbone[0].weight.grad, backbone[2].bias.grad)
optimizer.step()
print(head.weight.grad.sum(), loss.item())

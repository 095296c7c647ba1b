# after: Q&A "count parameters of a model" with sum(p.numel() ...) and children()
# expect: match
import torch.nn as nn
import torch

model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Dropout(0.5), nn.Linear(20, 2))
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(total, trainable, len(list(model.children())))
for p in model[0].parameters():
    p.requires_grad = False
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
model.eval()
out = model(torch.randn(2, 10)).sum()
out.backward()
print(model[0].weight.grad, model[3].weight.grad.shape)

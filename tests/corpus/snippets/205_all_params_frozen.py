# after: PyTorch forum "fine-tuning: element 0 of tensors does not require grad" (every parameter frozen, including the new head)
# expect: explained no-grad-to-compute
# mentions: requires_grad_(False) | Line 12 | backbone.parameters()
import torch
import torch.nn as nn

backbone = nn.Sequential(nn.Linear(10, 6), nn.ReLU())
classifier = nn.Linear(6, 2)
model = nn.Sequential(backbone, classifier)

for param in model.parameters():
    param.requires_grad_(False)

images = torch.randn(4, 10)
targets = torch.tensor([0, 1, 1, 0])
loss = nn.functional.cross_entropy(model(images), targets)
loss.backward()

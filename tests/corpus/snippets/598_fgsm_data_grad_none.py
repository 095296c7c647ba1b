# after: Adversarial Example Generation questions "'NoneType' object has no attribute 'data'" (the tutorial's data.requires_grad = True line left out, so data_grad = data.grad.data finds no gradient after loss.backward())
# expect: explained grad-is-none
# mentions: data | requires_grad
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
model = nn.Sequential(nn.Flatten(), nn.Linear(16, 10), nn.LogSoftmax(dim=1))
model.eval()
data = torch.rand(1, 1, 4, 4)
target = torch.tensor([3])
output = model(data)
loss = F.nll_loss(output, target)
model.zero_grad()
loss.backward()
data_grad = data.grad.data
perturbed_data = torch.clamp(data + 0.1 * data_grad.sign(), 0, 1)
print(model(perturbed_data).argmax(1))

# after: PyTorch forum "feature extraction: element 0 of tensors does not require grad" (the whole pretrained model frozen with model.requires_grad_(False), the new head inside it)
# expect: explained no-grad-to-compute
# mentions: model.requires_grad_(False) | Line 13 | `model`
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Linear(6, 4),
    nn.ReLU(),
    nn.Linear(4, 2),
)
optimizer = torch.optim.SGD(model[2].parameters(), lr=0.1)
model.requires_grad_(False)
inputs = torch.randn(3, 6)
loss = nn.functional.cross_entropy(model(inputs), torch.tensor([0, 1, 1]))
loss.backward()

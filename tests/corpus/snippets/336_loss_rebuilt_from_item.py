# after: PyTorch forum "element 0 of tensors does not require grad and does not have a grad_fn" (the loss rebuilt with torch.tensor from .item() values)
# expect: explained no-grad-to-compute
# mentions: `total_loss` | line 15 | with `.item()`, line 13 | total_loss = sum(losses) / len(losses)
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(2, 1)
criterion = nn.MSELoss()
batches = [(torch.randn(4, 2), torch.randn(4, 1)) for _ in range(3)]
losses = []
for inputs, targets in batches:
    losses.append(criterion(layer(inputs), targets).item())

total_loss = torch.tensor(sum(losses) / len(losses))
total_loss.backward()

# after: Stack Overflow "loss.backward() does not require grad" (the batch losses collected with .item() and rebuilt with torch.tensor to average them)
# expect: explained no-grad-to-compute
# mentions: `epoch_loss` | .item() | epoch_loss = torch.stack(batch_losses).mean()
import torch

W1 = torch.randn(3, 2, requires_grad=True)
inputs = torch.randn(4, 5, 3)
targets = torch.randn(4, 5, 2)

batch_losses = []
for xb, yb in zip(inputs, targets):
    pred = xb @ W1
    batch_losses.append(((pred - yb) ** 2).mean().item())

epoch_loss = torch.tensor(batch_losses).mean()
epoch_loss.backward()

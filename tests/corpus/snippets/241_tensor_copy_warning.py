# after: PyTorch forum "UserWarning: To copy construct from a tensor" (a batch of predictions copied with torch.tensor before scoring it)
# expect: match warns tensor-copy
# mentions: `scores` | scores.detach().clone()
import torch

weights = torch.randn(4, requires_grad=True)
scores = weights * 2
snapshot = torch.tensor(scores)
print(snapshot.requires_grad, scores.requires_grad)

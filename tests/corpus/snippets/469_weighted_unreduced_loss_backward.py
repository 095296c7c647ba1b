# after: PyTorch forum "grad can be implicitly created only for scalar outputs" (BCEWithLogitsLoss(reduction='none') for per-example weights, the weighted losses backpropagated without a mean)
# expect: explained non-scalar-backward
# mentions: `weighted` has shape [8, 1] | weighted.mean().backward()
import torch
import torch.nn as nn

torch.manual_seed(5)
scorer = nn.Linear(6, 1)
batch = torch.randn(8, 6)
labels = torch.randint(0, 2, (8, 1)).float()
sample_weights = torch.rand(8, 1)
bce = nn.BCEWithLogitsLoss(reduction='none')
weighted = bce(scorer(batch), labels) * sample_weights
weighted.backward()
print(scorer.weight.grad)

# after: class-imbalance posts (BCEWithLogitsLoss(reduction='none') times sample weights, then backward without reducing)
# expect: explained non-scalar-backward
# mentions: `weighted` | .sum()
import torch
import torch.nn as nn

torch.manual_seed(0)
clf = nn.Linear(4, 1)
bce = nn.BCEWithLogitsLoss(reduction="none")
xb = torch.randn(5, 4)
yb = torch.tensor([[1.0], [0.0], [0.0], [1.0], [0.0]])
sample_w = torch.tensor([[2.0], [1.0], [1.0], [2.0], [1.0]])
weighted = bce(clf(xb), yb) * sample_w
weighted.backward()

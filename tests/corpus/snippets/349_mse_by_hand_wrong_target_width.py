# after: learners' "MSE by hand" code (predictions of 3 outputs minus targets with 2 columns: "The size of tensor a must match the size of tensor b")
# expect: explained shape-mismatch
# mentions: size 3 in `preds` and 2 in `targets` | print(preds.shape, targets.shape)
import torch
import torch.nn as nn

torch.manual_seed(0)
regressor = nn.Linear(5, 3)
features = torch.randn(8, 5)
targets = torch.randn(8, 2)
preds = regressor(features)
diff = preds - targets
mse = (diff ** 2).mean()

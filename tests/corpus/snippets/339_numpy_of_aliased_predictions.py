# after: plotting predictions in a training notebook (a = b = output aliasing, then np.array of the alias)
# expect: explained numpy-requires-grad
# mentions: `preds` | .detach()
import numpy as np
import torch

torch.manual_seed(0)
slope = torch.randn(1, requires_grad=True)
xs = torch.linspace(-1, 1, 6)
preds = curve = slope * xs
plotted = preds.numpy()

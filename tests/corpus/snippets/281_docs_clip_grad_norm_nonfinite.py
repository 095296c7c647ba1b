# after: PyTorch docs torch.nn.utils.clip_grad_norm_ with error_if_nonfinite=True (a log of zero makes the gradients infinite)
# expect: explained nonfinite-grad-norm
# mentions: error_if_nonfinite | torch.autograd.set_detect_anomaly(True)
import torch
from torch import nn

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.zero_()
    model.bias.zero_()
x = torch.ones(4, 3)
loss = -torch.log(model(x).abs()).mean()
loss.backward()
nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, error_if_nonfinite=True)
print(model.weight.grad)

# after: PyTorch forum "Mismatch in shape: grad_output[0]" (a vector of ones of the batch size passed for a [batch, 1] output)
# expect: explained gradient-shape-mismatch
# mentions: `preds` | torch.ones_like(preds) | [4, 1]
import torch

model_w = torch.randn(2, 1, requires_grad=True)
batch = torch.randn(4, 2)
preds = batch @ model_w
preds.backward(torch.ones(4))
print(model_w.grad)

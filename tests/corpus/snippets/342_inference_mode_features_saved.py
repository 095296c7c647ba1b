# after: PyTorch forum "Inference tensors cannot be saved for backward" (features precomputed under torch.inference_mode, then a trainable head multiplies them)
# expect: explained inference-tensor
# mentions: `frozen_feats` | clone()
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
probe = nn.Linear(4, 2)
raw = torch.randn(10, 6)
with torch.inference_mode():
    frozen_feats = encoder(raw)
scale = torch.ones(4, requires_grad=True)
logits = probe(frozen_feats * scale)

# after: PyTorch forum "Inference tensors cannot be saved for backward" (features precomputed under torch.inference_mode(), then trained on)
# expect: explained inference-tensor
# mentions: `embeddings` | line 10 | embeddings = embeddings.clone()
import torch
import torch.nn as nn

encoder = nn.Linear(4, 3)
head = nn.Linear(3, 2)
batch = torch.randn(5, 4)
with torch.inference_mode():
    embeddings = encoder(batch)
logits = head(embeddings)
loss = logits.logsumexp(dim=1).mean()
loss.backward()

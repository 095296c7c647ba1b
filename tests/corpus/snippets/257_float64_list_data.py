# after: Stack Overflow "mat1 and mat2 must have the same dtype" (training data made with dtype=torch.float64 to keep precision)
# expect: explained dtype-mismatch
# mentions: `X_train` | line 7 | dtype=torch.float32
import torch
import torch.nn as nn

X_train = torch.tensor([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], dtype=torch.float64)
y_train = torch.tensor([[1.0], [0.0], [1.0]])
model = nn.Linear(2, 1)
loss = nn.functional.binary_cross_entropy_with_logits(model(X_train), y_train)
loss.backward()

# after: class-imbalance posts ("expected scalar type Float but found Double": class weights computed with NumPy, 1 / counts normalised, and made a tensor with torch.from_numpy, given to nn.CrossEntropyLoss(weight=class_weights))
# expect: explained dtype-mismatch
# mentions: class_weights | float()
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(3)
labels_np = np.array([0, 0, 0, 0, 1, 2, 2, 0])
counts = np.array([(labels_np == c).sum() for c in range(3)])
class_weights = torch.from_numpy(len(labels_np) / (len(counts) * counts))
model = nn.Linear(5, 3)
x = torch.randn(8, 5)
criterion = nn.CrossEntropyLoss(weight=class_weights)
loss = criterion(model(x), torch.from_numpy(labels_np))
loss.backward()

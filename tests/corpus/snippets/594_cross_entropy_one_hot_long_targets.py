# after: label-smoothing and one-hot questions "Expected floating point type for target with class probabilities, got Long" (targets made with F.one_hot(labels, num_classes), handed to nn.CrossEntropyLoss as they are)
# expect: explained class-target-probabilities
# mentions: one_hot_labels | labels
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(5)
model = nn.Linear(6, 4)
inputs = torch.randn(5, 6)
labels = torch.tensor([0, 3, 1, 1, 2])
one_hot_labels = F.one_hot(labels, num_classes=4)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
loss = criterion(model(inputs), one_hot_labels)
loss.backward()

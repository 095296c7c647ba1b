# after: PyTorch forum "expected scalar type Long but found Float" (the labels of a tabular dataset made with torch.tensor(..., dtype=torch.float32) like the features, then given to nn.CrossEntropyLoss)
# expect: explained class-target-dtype
# mentions: `classes_t` holds floats | loss_fn(logits, classes_t.long())
import torch
import torch.nn as nn

rows = [[0.2, 1.1, 3.0], [1.5, 0.3, 0.7], [2.2, 2.1, 0.1], [0.9, 0.4, 1.8]]
classes = [2, 0, 1, 2]
features = torch.tensor(rows, dtype=torch.float32)
classes_t = torch.tensor(classes, dtype=torch.float32)

net = nn.Linear(3, 3)
loss_fn = nn.CrossEntropyLoss()
logits = net(features)
loss = loss_fn(logits, classes_t)
loss.backward()

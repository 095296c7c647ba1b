# after: PyTorch 0.4-era classification tutorials (predictions collected one by one with argmax, then torch.LongTensor(preds) compared with the labels)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 3)
inputs = torch.randn(6, 4)
labels = torch.LongTensor([0, 2, 1, 1, 0, 2])

preds = []
for x in inputs:
    out = model(x)
    preds.append(out.argmax())
predicted = torch.LongTensor(preds)
correct = (predicted == labels).sum().item()
print(predicted, correct, 100.0 * correct / len(labels))
scores = torch.FloatTensor([model(x).max() for x in inputs])
print(scores)

# after: Stack Overflow "RuntimeError: Expected floating point type for target with class probabilities, got Long" (a binary classifier with one output unit, squeezed, given to nn.CrossEntropyLoss with 0/1 labels)
# expect: explained class-target-probabilities
# mentions: `is_spam` has the same shape as `logits` | nn.BCEWithLogitsLoss()(logits, is_spam.float())
import torch
import torch.nn as nn

torch.manual_seed(30)
emails = torch.randn(10, 20)
is_spam = torch.randint(0, 2, (10,))
classifier = nn.Linear(20, 1)
criterion = nn.CrossEntropyLoss()
logits = classifier(emails).squeeze(1)
loss = criterion(logits, is_spam)
loss.backward()

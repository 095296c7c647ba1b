# after: Stack Overflow "IndexError: Target 5 is out of bounds" (star ratings 1-5 used directly as class labels for a 5-way classifier in a review-sentiment model)
# expect: explained class-target-range
# mentions: `stars` | Target 5 | criterion(scores, stars - 1) | at least 6
import torch
import torch.nn as nn

torch.manual_seed(24)
reviews = torch.randn(8, 12)
stars = torch.tensor([5, 3, 1, 4, 5, 2, 2, 4])
classifier = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 5))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)

scores = classifier(reviews)
loss = criterion(scores, stars)
optimizer.zero_grad()
loss.backward()
optimizer.step()

# after: saliency-map tutorials for CNNs (model.eval(), X.requires_grad_(), scores = model(X), the score of the predicted class picked with scores.gather(1, y.view(-1, 1)).squeeze(), scores.backward(torch.ones_like(...)), saliency = X.grad.data.abs().max(dim=1)[0], normalised to [0, 1] per image; and gradient x input)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(2)
model = nn.Sequential(
    nn.Conv2d(3, 4, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(2),
    nn.Flatten(),
    nn.Linear(16, 5),
)
for param in model.parameters():
    param.requires_grad = False
model.eval()

X = torch.rand(2, 3, 6, 6)
X.requires_grad_()
scores = model(X)
y = scores.argmax(dim=1)
scores = scores.gather(1, y.view(-1, 1)).squeeze()
scores.backward(torch.ones_like(scores))
saliency = X.grad.data.abs()
saliency, _ = torch.max(saliency, dim=1)
flat = saliency.view(saliency.size(0), -1)
lo = flat.min(dim=1, keepdim=True)[0]
hi = flat.max(dim=1, keepdim=True)[0]
normalised = ((flat - lo) / (hi - lo)).view_as(saliency)
print(y)
print(normalised[0])
grad_x_input = (X.grad * X).sum(dim=1)
print(grad_x_input.shape, grad_x_input[1].sum())

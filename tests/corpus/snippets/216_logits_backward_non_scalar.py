# after: PyTorch forum "grad can be implicitly created only for scalar outputs" (backward called on the model's logits to see the input saliency)
# expect: explained non-scalar-backward
# mentions: `logits` | logits.sum().backward() | torch.ones_like(logits)
import torch
import torch.nn as nn

classifier = nn.Linear(6, 3)
image = torch.randn(2, 6, requires_grad=True)
logits = classifier(image)
logits.backward()
print(image.grad)

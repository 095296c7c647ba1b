# after: Stack Overflow "Given input size: (64x1x1). Calculated output size: (64x0x0). Output size is too small" (a VGG-style stack of max-pooling layers on MNIST-sized inputs)
# expect: explained input-too-small
# mentions: 64x1x1 | 64x0x0 | `x` is that small | for layer in self.body: x = layer(x) | padding=1
import torch
import torch.nn as nn

class SmallVGG(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        channels = 1
        for out_channels in [16, 32, 64, 64, 64]:
            layers += [nn.Conv2d(channels, out_channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
            channels = out_channels
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))

model = SmallVGG()
digits = torch.randn(2, 1, 28, 28)
logits = model(digits)

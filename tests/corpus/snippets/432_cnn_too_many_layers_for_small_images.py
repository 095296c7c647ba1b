# after: PyTorch forum "Calculated padded input size per channel: (1 x 1). Kernel size: (3 x 3). Kernel size can't be greater than actual input size" (a CNN copied from a CIFAR tutorial applied to 12x12 patches)
# expect: explained input-too-small
# mentions: 3 x 3 kernel | 1 x 1 | `patches` | `x = patches`, then `for layer in features: x = layer(x)
import torch
import torch.nn as nn

features = nn.Sequential(
    nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3), nn.ReLU(),
)
patches = torch.randn(4, 1, 12, 12)
maps = features(patches)
print(maps.shape)

# after: Stack Overflow "expected input[1, 28, 28, 3] to have 3 channels, but got 28 channels instead" (an image as NumPy stores it, height x width x channels)
# expect: explained conv-channels
# mentions: img.permute(0, 3, 1, 2) | [1, 3, 28, 28]
import numpy as np
import torch
import torch.nn as nn

image = np.random.rand(28, 28, 3).astype(np.float32)
img = torch.from_numpy(image).unsqueeze(0)

conv = nn.Conv2d(in_channels=3, out_channels=16, kernel_size=3, padding=1)
features = conv(img)
print(features.shape)

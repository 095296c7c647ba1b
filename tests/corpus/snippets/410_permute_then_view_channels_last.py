# after: Stack Overflow "view size is not compatible with input tensor's size and stride" (a CNN feature map permuted to channels-last for a per-pixel classifier, then flattened with view)
# expect: explained view-not-contiguous
# mentions: `per_pixel` | flat = per_pixel.reshape(-1, 8)
import torch
import torch.nn as nn

conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)
pixel_head = nn.Linear(8, 4)
images = torch.randn(2, 3, 6, 6)
fmap = conv(images)
per_pixel = fmap.permute(0, 2, 3, 1)
flat = per_pixel.view(-1, 8)
logits = pixel_head(flat)

# after: Grad-CAM questions "Got 3D input, but bilinear mode needs 4D input" (the class activation map summed over channels without keepdim, then upsampled to the image size with F.interpolate(cam, size=..., mode='bilinear'))
# expect: explained interpolate-dims
# mentions: cam | unsqueeze(1)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)
features = nn.Conv2d(3, 4, 3, padding=1)
image = torch.rand(1, 3, 8, 8)
activations = features(image)
weights = torch.rand(1, 4, 1, 1)
cam = F.relu((weights * activations).sum(dim=1))
cam = F.interpolate(cam, size=(16, 16), mode="bilinear", align_corners=False)
print(cam.shape)

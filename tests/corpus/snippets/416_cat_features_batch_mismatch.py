# after: PyTorch forum "Sizes of tensors must match except in dimension 1" (image and text features concatenated for a multimodal head, the text batch built from a different number of rows)
# expect: explained cat-sizes
# mentions: `txt_feat` (tensor 1 of the list) | `img_feat` | print(img_feat.shape, txt_feat.shape)
import torch
import torch.nn as nn

image_encoder = nn.Linear(10, 6)
text_encoder = nn.Linear(7, 4)
head = nn.Linear(10, 2)
images = torch.randn(8, 10)
captions = torch.randn(4, 7)
img_feat = image_encoder(images)
txt_feat = text_encoder(captions)
joint = torch.cat([img_feat, txt_feat], dim=1)
out = head(joint)

# after: Vision Transformer from scratch tutorials (Conv2d patch embedding with stride = patch size, flatten(2).transpose(1, 2), a learnable [CLS] token concatenated with expand, learned position embeddings, nn.TransformerEncoder(norm_first=True, activation="gelu", batch_first=True), LayerNorm and a head on the CLS output, predictions in eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn


class ViT(nn.Module):
    def __init__(self, image_size=8, patch_size=4, channels=1, dim=16, depth=2, heads=4, num_classes=3):
        super().__init__()
        num_patches = (image_size // patch_size) ** 2
        self.patch_embed = nn.Conv2d(channels, dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.1, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, img):
        x = self.patch_embed(img).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.size(0), -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        x = self.encoder(x)
        return self.head(self.norm(x[:, 0]))


torch.manual_seed(26)
model = ViT()
images = torch.randn(2, 1, 8, 8)
labels = torch.tensor([2, 0])
loss = nn.functional.cross_entropy(model(images), labels)
loss.backward()
print(loss.item(), model.cls_token.grad.abs().sum())
model.eval()
with torch.no_grad():
    logits = model(images)
print(logits, logits.softmax(-1).argmax(-1))

# after: pre-LN transformer encoders (nn.TransformerEncoderLayer(norm_first=True, activation=F.gelu, batch_first=True), nn.TransformerEncoder(enable_nested_tensor=False, norm=final LayerNorm) as in ViT/GPT-2 style blocks, a padding mask, eval under no_grad)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)
layer = nn.TransformerEncoderLayer(24, 6, dim_feedforward=48, dropout=0.0, activation=F.gelu, batch_first=True, norm_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(24), enable_nested_tensor=False)
encoder.eval()
x = torch.randn(2, 5, 24)
padding = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
with torch.no_grad():
    y = encoder(x, src_key_padding_mask=padding)
    y_no_mask = encoder(x)
print(y.shape)
print(y[0])
print((y[1] - y_no_mask[1]).abs().max())

# after: nn.TransformerEncoderLayer docs example (one layer called directly, batch_first=True, src_key_padding_mask and a boolean src_mask, in eval under torch.no_grad, relu and gelu layers)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(17)
encoder_layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True, dim_feedforward=32)
gelu_layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True, dim_feedforward=32, activation="gelu")
encoder_layer.eval()
gelu_layer.eval()
src = torch.rand(3, 6, 16)
padding = torch.tensor([[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 1]], dtype=torch.bool)
src_mask = torch.rand(6, 6) > 0.8
src_mask.fill_diagonal_(False)
with torch.no_grad():
    out = encoder_layer(src, src_key_padding_mask=padding)
    out_masked = encoder_layer(src, src_mask=src_mask)
    out_gelu = gelu_layer(src, src_mask=src_mask, src_key_padding_mask=padding)
print(out[0])
print(out[2, 2:])
print(out_masked[1])
print(out_gelu[2])

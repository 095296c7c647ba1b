# after: GPT-style encoders with a causal mask (nn.TransformerEncoder(..., mask=generate_square_subsequent_mask(T), is_causal=True), a boolean causal mask for comparison, batch_first=True, norm_first=True, eval under torch.inference_mode)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(22)
layer = nn.TransformerEncoderLayer(16, 4, 64, dropout=0.1, batch_first=True, norm_first=True)
blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
blocks.eval()
x = torch.randn(2, 5, 16)
float_mask = nn.Transformer.generate_square_subsequent_mask(5)
bool_mask = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
with torch.inference_mode():
    y1 = blocks(x, mask=float_mask, is_causal=True)
    y2 = blocks(x, mask=bool_mask)
    y3 = blocks(x[:, :3], mask=nn.Transformer.generate_square_subsequent_mask(3), is_causal=True)
print(y1[0])
print((y1 - y2).abs().max())
print((y1[:, :3] - y3).abs().max())
print(y3[1])

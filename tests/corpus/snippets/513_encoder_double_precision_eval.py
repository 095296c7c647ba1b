# after: numerical-check notebooks that move a transformer to float64 (model.double(), inputs of dtype torch.float64, padding mask, compared with the float32 model under torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(23)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
encoder.eval()
x = torch.randn(2, 4, 8)
mask = torch.tensor([[False, False, False, True], [False, False, False, False]])
with torch.no_grad():
    y32 = encoder(x, src_key_padding_mask=mask)
encoder64 = encoder.double()
with torch.no_grad():
    y64 = encoder64(x.double(), src_key_padding_mask=mask)
print(y64.dtype, y64[0])
print((y64.float() - y32).abs().max() < 1e-5)

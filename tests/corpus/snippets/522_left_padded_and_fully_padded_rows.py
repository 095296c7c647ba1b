# after: padding-mask edge cases asked about on forums (left padding, where torch cannot use its nested-tensor path, and a row that is all padding, whose outputs are NaN in plain torch's unfused path and zeros in the nested one; nn.TransformerEncoder(batch_first=True) in eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(30)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
encoder.eval()
x = torch.randn(3, 4, 8)
right = torch.tensor([[False, False, True, True], [False, False, False, False], [False, True, True, True]])
left = right.flip(1)
all_pad = torch.tensor([[False, False, True, True], [True, True, True, True], [False, True, True, True]])
with torch.no_grad():
    y_right = encoder(x, src_key_padding_mask=right)
    y_left = encoder(x, src_key_padding_mask=left)
    y_all = encoder(x, src_key_padding_mask=all_pad)
print(y_right[0])
print(y_left[0])
print(y_all[1])
print(y_all[0])

# after: "torch.no_grad vs torch.inference_mode" posts (the same eval model run three ways: under no_grad, under inference_mode, with gradients on; requires_grad and is_inference of each output, the numbers compared)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(25)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
attn = nn.MultiheadAttention(8, 2, batch_first=True)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
model.eval()
attn.eval()
encoder.eval()
x = torch.randn(2, 5, 6)
pad = torch.tensor([[False] * 5, [False, False, True, True, True]])


def forward(x):
    h = model(x)
    a, _ = attn(h, h, h, key_padding_mask=pad)
    return encoder(a, src_key_padding_mask=pad)


with torch.no_grad():
    y_no_grad = forward(x)
with torch.inference_mode():
    y_inference = forward(x)
y_grad = forward(x)
print(y_no_grad.requires_grad, y_inference.is_inference(), y_grad.requires_grad)
print(torch.equal(y_no_grad, y_inference), (y_no_grad - y_grad).abs().max())
print(y_no_grad[1])
print(y_grad[1])
y_grad.sum().backward()
print(attn.out_proj.weight.grad)

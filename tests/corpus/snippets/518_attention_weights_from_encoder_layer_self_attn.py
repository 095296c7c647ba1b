# after: attention-visualisation answers that call a trained encoder layer's self_attn directly (layer.self_attn(x, x, x, need_weights=True, average_attn_weights=False) on the same input, next to the layer's own output, batch_first=True, eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(27)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(12, 4, 24, batch_first=True), 2, enable_nested_tensor=False)
encoder.eval()
x = torch.randn(1, 5, 12)
maps = []
with torch.no_grad():
    h = x
    for layer in encoder.layers:
        _, weights = layer.self_attn(h, h, h, need_weights=True, average_attn_weights=False)
        maps.append(weights)
        h = layer(h)
    full = encoder(x)
print(torch.equal(h, full))
print(maps[0][0, 1])
print(torch.stack(maps).shape, maps[1].sum(-1))
print(full)

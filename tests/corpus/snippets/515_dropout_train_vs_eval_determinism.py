# after: "why do I get different outputs every time" answers (a transformer encoder layer in train mode gives a new output per call because of dropout, in eval mode the same output twice; torch.manual_seed before each train call repeats it)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(24)
layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5, batch_first=True)
x = torch.randn(1, 3, 8)
layer.train()
with torch.no_grad():
    a = layer(x)
    b = layer(x)
    torch.manual_seed(0)
    c = layer(x)
    torch.manual_seed(0)
    d = layer(x)
layer.eval()
with torch.no_grad():
    e = layer(x)
    f = layer(x)
print(torch.equal(a, b), torch.equal(c, d), torch.equal(e, f))
print(e)
print(a)

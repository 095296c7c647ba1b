# after: "how do I get the attention maps out of nn.TransformerEncoder" answers (a forward hook on each encoder layer collecting outputs into a list, the model run in eval under torch.no_grad, batch_first=True)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(19)
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
captured = []


def save_output(module, inputs, output):
    captured.append(output.shape)


for block in encoder.layers:
    block.register_forward_hook(save_output)
encoder.eval()
x = torch.randn(2, 3, 8)
with torch.no_grad():
    y = encoder(x)
print(len(captured), captured)
print(y[0])

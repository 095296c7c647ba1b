# after: "Weight initialization in PyTorch" posts (model.apply(init_weights) with xavier_uniform_, kaiming_normal_, zeros_, constant_, trunc_normal_, then a forward and backward)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))

def init_weights(m):
    if isinstance(m, nn.Linear):
        if m.out_features == 2:
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("linear"))
            nn.init.constant_(m.bias, 0.1)
        else:
            nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")
            nn.init.zeros_(m.bias)

model.apply(init_weights)
emb = torch.empty(5, 3)
nn.init.trunc_normal_(emb, std=0.02)
nn.init.orthogonal_(model[2].weight)
x = torch.randn(4, 6)
out = model(x)
out.sum().backward()
print(model[4].bias, emb.abs().max() <= 0.04)
print(model[0].weight.grad.sum(), out)

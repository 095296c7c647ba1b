# after: positional-encoding modules that compute their table once in __init__ from a learned parameter and keep it with self.register_buffer("pe", ...), so the buffer carries a graph into every step: the second step's loss.backward() fails with "Trying to backward through the graph a second time"
# expect: explained backward-twice
# mentions: self.pe | self.scale | .detach()
import torch
import torch.nn as nn

torch.manual_seed(0)


class PositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        position = torch.arange(max_len).unsqueeze(1)
        pe = torch.sin(position * self.scale)
        self.register_buffer("pe", pe.expand(max_len, d_model))

    def forward(self, x):
        return x + self.pe[: x.size(1)]


model = nn.Sequential(PositionalEmbedding(10, 4), nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 6, 4)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# after: fine-tuning with a frozen backbone (every encoder parameter requires_grad_(False), the encoder in eval, gradients on for the new head only, SGD steps on the head, the encoder's features computed without torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(13)
backbone = nn.TransformerEncoder(nn.TransformerEncoderLayer(12, 4, 24, batch_first=True), 2)
for p in backbone.parameters():
    p.requires_grad_(False)
backbone.eval()
head = nn.Linear(12, 3)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
x = torch.randn(4, 6, 12)
pad = torch.zeros(4, 6, dtype=torch.bool)
pad[2, 4:] = True
y = torch.tensor([0, 2, 1, 2])
for step in range(3):
    features = backbone(x, src_key_padding_mask=pad)
    loss = nn.functional.cross_entropy(head(features[:, 0]), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item(), features.requires_grad)
print(features[2, 4:])
print(head.weight.grad)

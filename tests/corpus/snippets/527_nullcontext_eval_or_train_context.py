# after: shared train/eval loops that pick their context once (`ctx = torch.no_grad() if not train else contextlib.nullcontext()`, `with ctx:` around the forward, model.train(train) on a small transformer encoder classifier, the loss backpropagated only when training)
# expect: match
import contextlib

import torch
import torch.nn as nn

torch.manual_seed(35)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
head = nn.Linear(8, 2)
params = list(encoder.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.05)
x = torch.randn(3, 4, 8)
pad = torch.tensor([[False] * 4, [False, False, True, True], [False, True, True, True]])
y = torch.tensor([0, 1, 1])


def run_epoch(train):
    encoder.train(train)
    head.train(train)
    ctx = contextlib.nullcontext() if train else torch.no_grad()
    with ctx:
        logits = head(encoder(x, src_key_padding_mask=pad)[:, 0])
        loss = nn.functional.cross_entropy(logits, y)
    if train:
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item(), logits


print(run_epoch(True)[0])
print(run_epoch(False))
print(run_epoch(True)[0])
print(run_epoch(False)[1].argmax(1))

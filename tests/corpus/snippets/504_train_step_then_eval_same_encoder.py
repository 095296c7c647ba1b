# after: text-classification training loops on nn.TransformerEncoder (batch_first=True, padding mask, model.train() for an AdamW step with gradients checked, then model.eval() and torch.no_grad() for validation accuracy, then back to train() for one more step)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(nn.Module):
    def __init__(self, vocab=30, d_model=16, classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=0)
        layer = nn.TransformerEncoderLayer(d_model, 2, 32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.fc = nn.Linear(d_model, classes)

    def forward(self, x):
        mask = x == 0
        h = self.encoder(self.embedding(x), src_key_padding_mask=mask)
        h = h.masked_fill(mask.unsqueeze(-1), 0.0).sum(1) / (~mask).sum(1, keepdim=True)
        return self.fc(h)


torch.manual_seed(11)
model = TextClassifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
x_train = torch.tensor([[4, 5, 6, 0], [7, 8, 0, 0], [9, 10, 11, 12], [13, 0, 0, 0]])
y_train = torch.tensor([0, 1, 1, 0])
x_val = torch.tensor([[4, 6, 0, 0], [9, 12, 10, 0]])
y_val = torch.tensor([0, 1])

for epoch in range(2):
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x_train), y_train)
    loss.backward()
    print(epoch, loss.item(), model.encoder.layers[1].linear2.weight.grad.norm().item())
    optimizer.step()
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        acc = (logits.argmax(1) == y_val).float().mean()
    print(logits, acc.item())
print(model.fc.weight)

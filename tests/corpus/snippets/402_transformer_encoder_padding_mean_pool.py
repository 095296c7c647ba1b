# after: sentence-classification tutorials with nn.TransformerEncoder (TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, batch_first=True), enable_nested_tensor=False, src_key_padding_mask from the padding id, mean pooling over the real tokens, a learned positional embedding, a train step then evaluation in eval mode)
# expect: match
import torch
import torch.nn as nn

class Classifier(nn.Module):
    def __init__(self, vocab=30, d_model=16, nhead=4, num_layers=2, num_classes=3, max_len=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, max_len, d_model))
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=num_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, tokens):
        pad = tokens == 0
        h = self.embed(tokens) + self.pos[:, :tokens.size(1)]
        h = self.encoder(h, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        pooled = (h * keep).sum(1) / keep.sum(1)
        return self.head(pooled)

torch.manual_seed(18)
model = Classifier()
tokens = torch.tensor([[5, 9, 12, 0, 0], [7, 3, 3, 21, 8], [2, 0, 0, 0, 0]])
labels = torch.tensor([0, 2, 1])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
model.train()
for step in range(2):
    logits = model(tokens)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())
print(model.encoder.layers[0].self_attn.in_proj_weight.grad.abs().sum())
print(model.embed.weight.grad[0].abs().sum(), model.pos.grad[0, 4])

model.eval()
probs = model(tokens).softmax(-1).detach()
print(probs)
print(probs.argmax(-1))

# after: masked-language-model heads on a BERT-style encoder (a [MASK] token, a transform Linear + GELU + LayerNorm, a decoder whose weight is tied to the token embedding, topk predictions for the masked position in eval under torch.no_grad, a padding mask)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, MASK = 0, 1


class MaskedLM(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.pos = nn.Embedding(10, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 4 * dim, activation=F.gelu, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.transform = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.LayerNorm(dim))
        self.decoder = nn.Linear(dim, vocab)
        self.decoder.weight = self.embed.weight

    def forward(self, ids):
        h = self.embed(ids) + self.pos(torch.arange(ids.size(1)))
        h = self.encoder(h, src_key_padding_mask=ids == PAD)
        return self.decoder(self.transform(h))


torch.manual_seed(29)
model = MaskedLM()
ids = torch.tensor([[5, 6, MASK, 8, 9, PAD], [11, MASK, 13, PAD, PAD, PAD]])
model.eval()
with torch.no_grad():
    logits = model(ids)
masked = ids == MASK
top = logits[masked].topk(3, dim=-1)
print(top.values)
print(top.indices)
print(model.decoder.weight is model.embed.weight, logits[1, 4].abs().sum())

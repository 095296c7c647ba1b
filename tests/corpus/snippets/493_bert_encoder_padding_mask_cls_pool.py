# after: BERT-style sentence encoders (token + learned position + segment embeddings, LayerNorm, nn.TransformerEncoder(batch_first=True) with the default enable_nested_tensor, src_key_padding_mask from the pad id, the [CLS] vector through a tanh pooler, evaluated under torch.no_grad)
# expect: match
import torch
import torch.nn as nn


class MiniBert(nn.Module):
    def __init__(self, vocab=40, d_model=16, heads=4, layers=2, max_len=12, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.tok = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        self.pos = nn.Embedding(max_len, d_model)
        self.seg = nn.Embedding(2, d_model)
        self.ln = nn.LayerNorm(d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers)
        self.pooler = nn.Linear(d_model, d_model)

    def forward(self, input_ids, token_type_ids):
        positions = torch.arange(input_ids.size(1)).unsqueeze(0)
        h = self.ln(self.tok(input_ids) + self.pos(positions) + self.seg(token_type_ids))
        pad_mask = input_ids == self.pad_id
        h = self.encoder(h, src_key_padding_mask=pad_mask)
        return h, torch.tanh(self.pooler(h[:, 0]))


torch.manual_seed(0)
model = MiniBert()
model.eval()
input_ids = torch.tensor([[1, 7, 9, 12, 2, 0, 0], [1, 5, 2, 8, 8, 3, 2], [1, 30, 2, 0, 0, 0, 0]])
token_type_ids = torch.tensor([[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0, 0]])
with torch.no_grad():
    hidden, pooled = model(input_ids, token_type_ids)
print(hidden.shape, pooled.shape)
print(hidden[0, 5:])
print(hidden[2, 3:].abs().sum())
print(pooled)

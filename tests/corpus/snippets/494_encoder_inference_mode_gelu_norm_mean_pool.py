# after: sentence-embedding examples (nn.TransformerEncoderLayer(activation="gelu", batch_first=True), nn.TransformerEncoder(..., norm=nn.LayerNorm(d_model)), masked mean pooling, cosine similarity of two sentences, run under torch.inference_mode)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
d_model = 32
emb = nn.Embedding(50, d_model, padding_idx=0)
layer = nn.TransformerEncoderLayer(d_model=d_model, nhead=4, dim_feedforward=64, activation="gelu", batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=3, norm=nn.LayerNorm(d_model))
emb.eval()
encoder.eval()

batch = torch.tensor([[3, 14, 15, 9, 2, 6], [5, 35, 8, 0, 0, 0]])
mask = batch.eq(0)
with torch.inference_mode():
    out = encoder(emb(batch) * d_model ** 0.5, src_key_padding_mask=mask)
    keep = (~mask).unsqueeze(-1).to(out.dtype)
    sentence = (out * keep).sum(dim=1) / keep.sum(dim=1)
    similarity = F.cosine_similarity(sentence[0], sentence[1], dim=0)
print(out[1, 3:])
print(sentence)
print(similarity.item())

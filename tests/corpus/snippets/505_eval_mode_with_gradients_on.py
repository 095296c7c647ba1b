# after: saliency / input-gradient examples on a transformer classifier (model.eval() turns dropout off but gradients stay on: the embeddings' gradient through nn.TransformerEncoder with a padding mask, no torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(12)
emb = nn.Embedding(20, 8, padding_idx=0)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
head = nn.Linear(8, 1)
for m in (emb, encoder, head):
    m.eval()
tokens = torch.tensor([[3, 9, 4, 0, 0]])
embedded = emb(tokens).detach().requires_grad_(True)
out = encoder(embedded, src_key_padding_mask=tokens == 0)
score = head(out[:, 0]).squeeze()
score.backward()
saliency = embedded.grad.norm(dim=-1)
print(score.item())
print(out[0, 3:])
print(saliency)
print(encoder.layers[0].self_attn.in_proj_bias.grad[:4])

# after: nn.Transformer examples with the default sequence-first shapes (model(src, tgt, tgt_mask=..., src_key_padding_mask=..., tgt_key_padding_mask=..., memory_key_padding_mask=...)), a train step with the shifted target, then the same batch in eval under torch.no_grad
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(6)
vocab, d_model = 16, 8
emb = nn.Embedding(vocab, d_model, padding_idx=0)
transformer = nn.Transformer(d_model=d_model, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)
out_proj = nn.Linear(d_model, vocab)
params = [*emb.parameters(), *transformer.parameters(), *out_proj.parameters()]
opt = torch.optim.Adam(params, lr=1e-3)

src = torch.tensor([[3, 4, 5, 0], [6, 7, 0, 0]]).T
tgt = torch.tensor([[1, 8, 9, 10, 2], [1, 11, 2, 0, 0]]).T
tgt_in, tgt_out = tgt[:-1], tgt[1:]
tgt_mask = transformer.generate_square_subsequent_mask(tgt_in.size(0))


def run():
    h = transformer(
        emb(src), emb(tgt_in), tgt_mask=tgt_mask,
        src_key_padding_mask=(src == 0).T, tgt_key_padding_mask=(tgt_in == 0).T,
        memory_key_padding_mask=(src == 0).T,
    )
    return out_proj(h)


logits = run()
loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), tgt_out.reshape(-1), ignore_index=0)
opt.zero_grad()
loss.backward()
opt.step()
print(loss.item(), emb.weight.grad[0].abs().sum())

for m in (emb, transformer, out_proj):
    m.eval()
with torch.no_grad():
    logits = run()
print(logits[:, 0].argmax(-1))
print(logits[-1])

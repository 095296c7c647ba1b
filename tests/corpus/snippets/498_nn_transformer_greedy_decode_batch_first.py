# after: translation tutorials with nn.Transformer(batch_first=True) (source/target token embeddings, sinusoidal positions, generator Linear, encode/decode split, greedy_decode with generate_square_subsequent_mask and tgt_is_causal=True, src_key_padding_mask, evaluated under torch.no_grad)
# expect: match
import math

import torch
import torch.nn as nn

PAD, BOS, EOS = 0, 1, 2


class Seq2SeqTransformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=16, nhead=4, layers=2, ff=32):
        super().__init__()
        self.d_model = d_model
        self.src_tok = nn.Embedding(src_vocab, d_model)
        self.tgt_tok = nn.Embedding(tgt_vocab, d_model)
        position = torch.arange(32).unsqueeze(1)
        div = torch.exp(-torch.arange(0, d_model, 2) * math.log(10000.0) / d_model)
        pe = torch.zeros(32, d_model)
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        self.register_buffer("pe", pe)
        self.transformer = nn.Transformer(d_model, nhead, layers, layers, ff, dropout=0.1, batch_first=True)
        self.generator = nn.Linear(d_model, tgt_vocab)

    def embed(self, emb, tokens):
        return emb(tokens) * math.sqrt(self.d_model) + self.pe[: tokens.size(1)]

    def encode(self, src, src_padding_mask):
        return self.transformer.encoder(self.embed(self.src_tok, src), src_key_padding_mask=src_padding_mask)

    def decode(self, tgt, memory, memory_padding_mask):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        return self.transformer.decoder(
            self.embed(self.tgt_tok, tgt), memory, tgt_mask=tgt_mask, tgt_is_causal=True,
            memory_key_padding_mask=memory_padding_mask,
        )


def greedy_decode(model, src, max_len):
    src_padding_mask = src == PAD
    memory = model.encode(src, src_padding_mask)
    ys = torch.full((src.size(0), 1), BOS, dtype=torch.long)
    for _ in range(max_len - 1):
        out = model.decode(ys, memory, src_padding_mask)
        prob = model.generator(out[:, -1])
        next_word = prob.argmax(dim=1, keepdim=True)
        ys = torch.cat([ys, next_word], dim=1)
    return ys, memory


torch.manual_seed(5)
model = Seq2SeqTransformer(20, 18)
model.eval()
src = torch.tensor([[1, 7, 5, 9, 2, 0], [1, 11, 4, 2, 0, 0]])
with torch.no_grad():
    ys, memory = greedy_decode(model, src, 6)
print(ys)
print(memory[1, 4:])
print(memory[0, 0])

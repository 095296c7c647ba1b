# after: nn.TransformerDecoder docs example (decoder-only use with an encoder's memory: TransformerDecoder(TransformerDecoderLayer(d_model, nhead, batch_first=True), num_layers, norm=LayerNorm), tgt_mask from generate_square_subsequent_mask, tgt_is_causal=True, memory_key_padding_mask, eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(28)
decoder_layer = nn.TransformerDecoderLayer(d_model=16, nhead=4, dim_feedforward=32, batch_first=True)
decoder = nn.TransformerDecoder(decoder_layer, num_layers=2, norm=nn.LayerNorm(16))
decoder.eval()
memory = torch.rand(2, 6, 16)
tgt = torch.rand(2, 4, 16)
tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
memory_pad = torch.tensor([[False] * 6, [False] * 3 + [True] * 3])
with torch.no_grad():
    out = decoder(tgt, memory, tgt_mask=tgt_mask, tgt_is_causal=True, memory_key_padding_mask=memory_pad)
    out_plain = decoder(tgt, memory)
print(out.shape)
print(out[1])
print(out_plain[0, 0])

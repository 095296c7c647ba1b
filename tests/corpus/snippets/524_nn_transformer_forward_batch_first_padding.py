# after: nn.Transformer quick-start code with batch_first=True (model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(T), src_key_padding_mask, memory_key_padding_mask, tgt_is_causal=True) on random features, a train step, then the same call in eval under torch.no_grad)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(32)
model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=32, batch_first=True)
src = torch.rand(2, 6, 16)
tgt = torch.rand(2, 4, 16)
src_pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
tgt_mask = model.generate_square_subsequent_mask(4)
out = model(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad, tgt_is_causal=True)
out.pow(2).mean().backward()
print(model.encoder.layers[0].self_attn.in_proj_weight.grad.abs().sum())
print(model.decoder.layers[1].multihead_attn.out_proj.bias.grad)
model.eval()
with torch.no_grad():
    out = model(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad, tgt_is_causal=True)
    memory = model.encoder(src, src_key_padding_mask=src_pad)
print(out[1])
print(memory[1, 4:])

# after: PyTorch tutorial "Language Modeling with nn.Transformer" (a causal mask from the model's static method)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                       dim_feedforward=16, dropout=0.0, batch_first=True)
src = torch.randn(2, 5, 8)
tgt = torch.randn(2, 3, 8)
tgt_mask = model.generate_square_subsequent_mask(3)
mask_again = nn.Transformer.generate_square_subsequent_mask(3)
out = model(src, tgt, tgt_mask=tgt_mask)
loss = out.pow(2).mean()
loss.backward()
print(tgt_mask)
print(torch.equal(tgt_mask, mask_again), loss)

# after: nn.MultiheadAttention with the default batch_first=False, whose key_padding_mask was built (length, batch) like the inputs: "Expected key_padded_mask.shape[0] to be 3, but got 6"
# expect: explained mask-shape
# mentions: key_padding_mask.T | (batch, source length)
import torch
import torch.nn as nn

torch.manual_seed(0)
mha = nn.MultiheadAttention(embed_dim=8, num_heads=2)
src = torch.randn(6, 3, 8)
lengths = torch.tensor([6, 4, 2])
key_padding_mask = torch.arange(6)[:, None] >= lengths[None, :]
out, _ = mha(src, src, src, key_padding_mask=key_padding_mask)
out.sum().backward()

# after: learners trying Raschka's MultiHeadAttention with sizes that do not divide (d_out=2, num_heads=4), stopped by the class's own assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
# expect: explained own-assert
# mentions: d_out % num_heads == 0 | line 16 | MultiHeadAttention(d_in=3, d_out=2, num_heads=4)
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out)


mha = MultiHeadAttention(d_in=3, d_out=2, num_heads=4)

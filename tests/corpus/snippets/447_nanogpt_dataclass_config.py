# after: nanoGPT model.py (`@dataclass class GPTConfig` with typed defaults, GPT(GPTConfig(n_layer=2)))
# expect: refused
# mentions: @dataclass | plain class whose `__init__` sets each field | def __init__(self
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class GPTConfig:
    block_size: int = 8
    vocab_size: int = 16
    n_embd: int = 12


config = GPTConfig(n_embd=6)
wte = nn.Embedding(config.vocab_size, config.n_embd)
print(wte(torch.arange(config.block_size)).sum())

# after: PyTorch forum "IndexError: index out of range in self" (a vocabulary of 100 words, token ids numbered from 1 so the last id is 100, nn.Embedding(vocab_size, dim) one row short)
# expect: explained embedding-index
# mentions: `word_embeddings` | `token_ids` | 0 to 99 | word_embeddings.num_embeddings
import torch
import torch.nn as nn

vocab_size = 100
embedding_dim = 8
word_embeddings = nn.Embedding(vocab_size, embedding_dim)
token_ids = torch.tensor([[1, 15, 100], [42, 7, 99]])
vectors = word_embeddings(token_ids)
sentence = vectors.mean(dim=1)

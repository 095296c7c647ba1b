# after: the zalandoresearch / DeepMind-Sonnet-port VQ-VAE notebook verbatim (VectorQuantizer(nn.Module) keeping its settings and codebook under one-underscore names: self._embedding_dim, self._num_embeddings, self._embedding = nn.Embedding(...), self._commitment_cost)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(21)


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost):
        super(VectorQuantizer, self).__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.uniform_(-1 / self._num_embeddings, 1 / self._num_embeddings)
        self._commitment_cost = commitment_cost

    def forward(self, inputs):
        flat_input = inputs.reshape(-1, self._embedding_dim)
        distances = torch.cdist(flat_input, self._embedding.weight)
        return self._embedding(torch.argmin(distances, dim=1))


vq = VectorQuantizer(num_embeddings=6, embedding_dim=4, commitment_cost=0.25)
print(vq(torch.randn(5, 4)))

# after: VQ-VAE implementations with public attribute names (a VectorQuantizer with nn.Embedding(num_embeddings, embedding_dim) initialised uniform_(-1/K, 1/K), distances = sum(z^2) + sum(e^2) - 2 z @ e^T, encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1), one-hot encodings via scatter_, quantized = encodings @ weight, q_latent_loss = F.mse_loss(quantized, inputs.detach()), e_latent_loss = F.mse_loss(quantized.detach(), inputs), loss = q_latent_loss + commitment_cost * e_latent_loss, the straight-through quantized = inputs + (quantized - inputs).detach(), perplexity from avg_probs)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(21)


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost):
        super(VectorQuantizer, self).__init__()
        self.embedding_dim = embedding_dim
        self.num_embeddings = num_embeddings
        self.embedding = nn.Embedding(self.num_embeddings, self.embedding_dim)
        self.embedding.weight.data.uniform_(-1 / self.num_embeddings, 1 / self.num_embeddings)
        self.commitment_cost = commitment_cost

    def forward(self, inputs):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self.embedding_dim)
        distances = (
            torch.sum(flat_input**2, dim=1, keepdim=True)
            + torch.sum(self.embedding.weight**2, dim=1)
            - 2 * torch.matmul(flat_input, self.embedding.weight.t())
        )
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self.num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)
        quantized = torch.matmul(encodings, self.embedding.weight).view(input_shape)
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        q_latent_loss = F.mse_loss(quantized, inputs.detach())
        loss = q_latent_loss + self.commitment_cost * e_latent_loss
        quantized = inputs + (quantized - inputs).detach()
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


encoder = nn.Sequential(nn.Conv2d(1, 8, 4, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 1))
vq = VectorQuantizer(num_embeddings=6, embedding_dim=4, commitment_cost=0.25)
decoder = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))
params = list(encoder.parameters()) + list(vq.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3, amsgrad=False)
images = torch.rand(3, 1, 8, 8)
data_variance = torch.var(images)
for i in range(3):
    optimizer.zero_grad()
    z = encoder(images)
    vq_loss, quantized, perplexity, _ = vq(z)
    data_recon = decoder(quantized)
    recon_error = F.mse_loss(data_recon, images) / data_variance
    loss = recon_error + vq_loss
    loss.backward()
    optimizer.step()
    print(i, f"{recon_error.item():.5f}", f"{perplexity.item():.4f}")
print(vq.embedding.weight.grad.abs().sum(1), encoder[0].weight.grad.norm())

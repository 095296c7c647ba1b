# after: SimCLR NT-Xent implementations (two augmented views made with noise, a projection head, z = F.normalize(torch.cat([z_i, z_j], dim=0), dim=1), similarity_matrix = z @ z.T / temperature, the diagonal removed with masked_fill(torch.eye(2N, dtype=torch.bool), -9e15), positives at i + N and i - N, labels = torch.cat([torch.arange(N, 2N), torch.arange(N)]), F.cross_entropy; and the info_nce_loss variant with nn.CosineSimilarity and logsumexp, top-1 accuracy of the positive)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(21)
encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16))
projection = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8))
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(projection.parameters()), lr=1e-3)


def nt_xent(z_i, z_j, temperature=0.5):
    n = z_i.shape[0]
    z = F.normalize(torch.cat([z_i, z_j], dim=0), dim=1)
    similarity_matrix = z @ z.T / temperature
    mask = torch.eye(2 * n, dtype=torch.bool)
    similarity_matrix = similarity_matrix.masked_fill(mask, -9e15)
    labels = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
    return F.cross_entropy(similarity_matrix, labels)


def info_nce_loss(feats, temperature=0.5):
    cos_sim = F.cosine_similarity(feats[:, None, :], feats[None, :, :], dim=-1)
    self_mask = torch.eye(cos_sim.shape[0], dtype=torch.bool)
    cos_sim.masked_fill_(self_mask, -9e15)
    pos_mask = self_mask.roll(shifts=cos_sim.shape[0] // 2, dims=0)
    cos_sim = cos_sim / temperature
    nll = -cos_sim[pos_mask] + torch.logsumexp(cos_sim, dim=-1)
    comb_sim = torch.cat([cos_sim[pos_mask][:, None], cos_sim.masked_fill(pos_mask, -9e15)], dim=-1)
    sim_argsort = comb_sim.argsort(dim=-1, descending=True).argmin(dim=-1)
    return nll.mean(), (sim_argsort == 0).float().mean()


x = torch.randn(5, 6)
for step in range(3):
    view1 = x + 0.1 * torch.randn_like(x)
    view2 = x + 0.1 * torch.randn_like(x)
    z_i = projection(encoder(view1))
    z_j = projection(encoder(view2))
    loss = nt_xent(z_i, z_j)
    other, acc = info_nce_loss(torch.cat([z_i, z_j], dim=0))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item(), other.item(), acc.item())
cos = nn.CosineSimilarity(dim=1)
print(cos(z_i, z_j))

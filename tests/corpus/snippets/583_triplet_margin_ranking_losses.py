# after: metric-learning posts (an embedding net, nn.TripletMarginLoss(margin=1.0, p=2) next to the hand-written max(d(a, p) - d(a, n) + margin, 0) with F.pairwise_distance, nn.TripletMarginWithDistanceLoss with a cosine distance, a contrastive loss on pairs with torch.clamp(margin - d, min=0), nn.CosineEmbeddingLoss with +1/-1 targets, nn.MarginRankingLoss, nn.HingeEmbeddingLoss, batch-hard mining with torch.cdist)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(13)
embed = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
anchor_x, positive_x, negative_x = torch.randn(3, 6, 4).unbind(0)
anchor, positive, negative = embed(anchor_x), embed(positive_x), embed(negative_x)

triplet = nn.TripletMarginLoss(margin=1.0, p=2)(anchor, positive, negative)
d_ap = F.pairwise_distance(anchor, positive, p=2)
d_an = F.pairwise_distance(anchor, negative, p=2)
by_hand = torch.clamp(d_ap - d_an + 1.0, min=0.0).mean()
print(triplet, by_hand)

cosine_distance = lambda x, y: 1.0 - F.cosine_similarity(x, y)
with_distance = nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.5)
print(with_distance(anchor, positive, negative))

same = torch.tensor([1, 0, 1, 1, 0, 0]).float()
d = F.pairwise_distance(anchor, negative)
contrastive = (same * d.pow(2) + (1 - same) * torch.clamp(1.0 - d, min=0).pow(2)).mean() / 2
print(contrastive)

y = 2 * same - 1
print(nn.CosineEmbeddingLoss(margin=0.2)(anchor, negative, y))
print(nn.MarginRankingLoss(margin=0.1)(d_an, d_ap, torch.ones(6)))
print(nn.HingeEmbeddingLoss(margin=1.0)(d, y))

labels = torch.tensor([0, 0, 1, 1, 2, 2])
dist = torch.cdist(anchor, anchor)
same_label = labels[:, None] == labels[None, :]
hardest_pos = (dist * same_label).max(dim=1).values
hardest_neg = (dist + 1e6 * same_label).min(dim=1).values
batch_hard = F.relu(hardest_pos - hardest_neg + 0.3).mean()
print(batch_hard)
(triplet + contrastive + batch_hard).backward()
print(embed[2].weight.grad)

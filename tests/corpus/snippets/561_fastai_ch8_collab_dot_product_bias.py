# after: fast.ai book chapter 8 "Collaborative Filtering Deep Dive" from scratch (create_params(size) = nn.Parameter(torch.zeros(*size).normal_(0, 0.01)), DotProductBias with user_factors, user_bias, movie_factors, movie_bias, sigmoid_range(res, *self.y_range), weight decay written as loss_with_wd = loss + wd * sum((p**2).sum() for p in model.parameters()), then the most and least liked items from movie_bias.squeeze().argsort())
# expect: match
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(42)
n_users, n_movies, n_factors = 6, 5, 3


def create_params(size):
    return nn.Parameter(torch.zeros(*size).normal_(0, 0.01))


def sigmoid_range(x, lo, hi):
    return torch.sigmoid(x) * (hi - lo) + lo


class DotProductBias(nn.Module):
    def __init__(self, n_users, n_movies, n_factors, y_range=(0, 5.5)):
        super().__init__()
        self.user_factors = create_params([n_users, n_factors])
        self.user_bias = create_params([n_users])
        self.movie_factors = create_params([n_movies, n_factors])
        self.movie_bias = create_params([n_movies])
        self.y_range = y_range

    def forward(self, x):
        users = self.user_factors[x[:, 0]]
        movies = self.movie_factors[x[:, 1]]
        res = (users * movies).sum(dim=1)
        res += self.user_bias[x[:, 0]] + self.movie_bias[x[:, 1]]
        return sigmoid_range(res, *self.y_range)


model = DotProductBias(n_users, n_movies, n_factors)
x = torch.stack([torch.randint(0, n_users, (12,)), torch.randint(0, n_movies, (12,))], dim=1)
ratings = torch.randint(1, 6, (12,)).float()
opt = torch.optim.Adam(model.parameters(), lr=5e-2)
wd = 0.1
for epoch in range(5):
    preds = model(x)
    loss = F.mse_loss(preds, ratings)
    loss_with_wd = loss + wd * sum((p**2).sum() for p in model.parameters())
    opt.zero_grad()
    loss_with_wd.backward()
    opt.step()
    print(epoch, loss.item(), loss_with_wd.item())
movie_bias = model.movie_bias.squeeze()
idxs = movie_bias.argsort(descending=True)[:3]
print(idxs, movie_bias[idxs])
print(model.user_factors.grad.abs().sum(dim=1))
distances = F.cosine_similarity(model.movie_factors, model.movie_factors[0][None])
print(distances.argsort(descending=True))

# after: Dive into Deep Learning 8.5 "Batch Normalization" from scratch (batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum) branching on torch.is_grad_enabled(), mean over (0, 2, 3) with keepdim=True for conv layers, a BatchNorm(nn.Module) with num_dims and moving statistics that are plain tensors moved with .to(X.device), BatchNorm LeNet in nn.Sequential), trained a few steps then evaluated under torch.no_grad()
# expect: match
import torch
from torch import nn

torch.manual_seed(10)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        if num_dims == 2:
            shape = (1, num_features)
        else:
            shape = (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean, self.moving_var, eps=1e-5, momentum=0.1
        )
        return Y


net = nn.Sequential(
    nn.Conv2d(1, 3, kernel_size=3), BatchNorm(3, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.Linear(3 * 3 * 3, 8), BatchNorm(8, num_dims=2), nn.Sigmoid(),
    nn.Linear(8, 4),
)
trainer = torch.optim.SGD(net.parameters(), lr=0.9)
loss = nn.CrossEntropyLoss()
X, y = torch.randn(6, 1, 8, 8), torch.tensor([0, 1, 2, 3, 0, 1])
for epoch in range(3):
    trainer.zero_grad()
    l = loss(net(X), y)
    l.backward()
    trainer.step()
    print(epoch, l.item())
print(net[1].gamma.reshape((-1,)), net[1].beta.reshape((-1,)))
print(net[1].moving_mean.reshape(-1), net[6].moving_var)
with torch.no_grad():
    print(net(X[:2]).argmax(1))

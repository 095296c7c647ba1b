# after: the PyTorch tutorial "Spatial Transformer Networks" (a localization net of Conv2d/MaxPool2d/ReLU, fc_loc ending in nn.Linear(32, 3 * 2) whose weight is zeroed and bias set to the identity transform with .data.zero_() and .data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float)), theta.view(-1, 2, 3), F.affine_grid(theta, x.size()), F.grid_sample(x, grid), then a classifier and an SGD step; align_corners given as the warnings ask)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3)
        self.fc1 = nn.Linear(4 * 5 * 5, 10)
        self.localization = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(4, 6, kernel_size=3),
            nn.ReLU(True),
        )
        self.fc_loc = nn.Sequential(nn.Linear(6 * 3 * 3, 32), nn.ReLU(True), nn.Linear(32, 3 * 2))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 6 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)
        return x

    def forward(self, x):
        x = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = x.view(-1, 4 * 5 * 5)
        return F.log_softmax(self.fc1(x), dim=1)


model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.01)
data = torch.rand(4, 1, 12, 12)
target = torch.tensor([1, 7, 3, 0])
with torch.no_grad():
    same = model.stn(data)
print((same - data).abs().max())
for step in range(3):
    optimizer.zero_grad()
    output = model(data)
    loss = F.nll_loss(output, target)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
print(model.fc_loc[2].bias)
print(model.fc_loc[2].weight.grad.abs().sum())

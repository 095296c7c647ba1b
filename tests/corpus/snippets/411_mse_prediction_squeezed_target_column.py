# after: PyTorch forum "UserWarning: Using a target size (torch.Size([16, 1])) that is different to the input size (torch.Size([16]))" (a regression net's output squeezed, the targets kept as a column)
# expect: match warns target-size-broadcast
# mentions: `predicted` | `prices` | [16, 16] | prices.squeeze(1)
import torch
import torch.nn as nn

torch.manual_seed(25)
house_features = torch.randn(16, 5)
prices = torch.randn(16, 1)
regressor = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
mse = nn.MSELoss()
opt = torch.optim.SGD(regressor.parameters(), lr=0.05)
for epoch in range(2):
    predicted = regressor(house_features).squeeze()
    loss = mse(predicted, prices)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, loss.item())

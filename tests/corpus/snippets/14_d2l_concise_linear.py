# after: d2l.ai 3.5 concise linear regression (nn.LazyLinear-free version: nn.Linear, init normal_, MSELoss)
# expect: match
import torch
from torch import nn
from torch.utils import data

true_w = torch.tensor([2, -3.4])
true_b = 4.2
features = torch.normal(0, 1, (100, 2))
labels = (torch.matmul(features, true_w) + true_b).reshape(-1, 1)


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


data_iter = load_array((features, labels), 10)
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')
w = net[0].weight.data
print('error in estimating w:', true_w - w.reshape(true_w.shape))

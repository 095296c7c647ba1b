# after: Raschka et al. "Machine Learning with PyTorch and Scikit-Learn" ch. 13 (the XOR problem: nn.Sequential with two hidden ReLU layers and a Sigmoid output, BCELoss, SGD, train/valid accuracy; then a model class with a predict method, and copying the weights into a fresh model with state_dict/load_state_dict)
# expect: match
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
x = torch.rand(200, 2) * 2 - 1
y = ((x[:, 0] > 0) ^ (x[:, 1] > 0)).float()
n_train = 100
x_train, y_train = x[:n_train], y[:n_train]
x_valid, y_valid = x[n_train:], y[n_train:]
train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=2, shuffle=True)

model = nn.Sequential(
    nn.Linear(2, 4), nn.ReLU(),
    nn.Linear(4, 4), nn.ReLU(),
    nn.Linear(4, 1), nn.Sigmoid(),
)
loss_fn = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.015)


def train(model, num_epochs, train_dl, x_valid, y_valid):
    loss_hist_train = [0] * num_epochs
    accuracy_hist_valid = [0] * num_epochs
    for epoch in range(num_epochs):
        for x_batch, y_batch in train_dl:
            pred = model(x_batch)[:, 0]
            loss = loss_fn(pred, y_batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_hist_train[epoch] += loss.item()
        loss_hist_train[epoch] /= n_train / 2
        pred = model(x_valid)[:, 0]
        is_correct = ((pred >= 0.5).float() == y_valid).float()
        accuracy_hist_valid[epoch] += is_correct.mean()
    return loss_hist_train, accuracy_hist_valid


history = train(model, 4, train_dl, x_valid, y_valid)
print(history[0])
print(history[1])

clone = nn.Sequential(
    nn.Linear(2, 4), nn.ReLU(),
    nn.Linear(4, 4), nn.ReLU(),
    nn.Linear(4, 1), nn.Sigmoid(),
)
clone.load_state_dict(model.state_dict())
print(list(model.state_dict().keys()))
print(torch.equal(clone(x_valid), model(x_valid)))

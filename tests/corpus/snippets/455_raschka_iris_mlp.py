# after: Raschka et al. "Machine Learning with PyTorch and Scikit-Learn" ch. 12, "Building a multilayer perceptron for classifying flowers in the Iris dataset" (standardized features, TensorDataset, Model with nn.Sigmoid then nn.Softmax before CrossEntropyLoss, Adam, loss_hist and accuracy_hist per epoch), on Iris-like data from torch.randn
# expect: match
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
centers = torch.tensor([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.5, 2.0]])
y = torch.arange(3).repeat_interleave(20)
X = centers[y] + 0.3 * torch.randn(60, 4)
perm = torch.randperm(60)
X_train, y_train = X[perm[:40]], y[perm[:40]]
X_test, y_test = X[perm[40:]], y[perm[40:]]
X_train_norm = (X_train - X_train.mean(0)) / X_train.std(0)

train_ds = TensorDataset(X_train_norm, y_train)
torch.manual_seed(1)
batch_size = 2
train_dl = DataLoader(train_ds, batch_size, shuffle=True)


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.layer1 = nn.Linear(input_size, hidden_size)
        self.layer2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = self.layer1(x)
        x = nn.Sigmoid()(x)
        x = self.layer2(x)
        x = nn.Softmax(dim=1)(x)
        return x


input_size = X_train_norm.shape[1]
hidden_size = 16
output_size = 3
model = Model(input_size, hidden_size, output_size)
learning_rate = 0.001
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

num_epochs = 5
loss_hist = [0] * num_epochs
accuracy_hist = [0] * num_epochs
for epoch in range(num_epochs):
    for x_batch, y_batch in train_dl:
        pred = model(x_batch)
        loss = loss_fn(pred, y_batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss_hist[epoch] += loss.item() * y_batch.size(0)
        is_correct = (torch.argmax(pred, dim=1) == y_batch).float()
        accuracy_hist[epoch] += is_correct.sum()
    loss_hist[epoch] /= len(train_dl.dataset)
    accuracy_hist[epoch] /= len(train_dl.dataset)
print(loss_hist)
print(accuracy_hist)

X_test_norm = (X_test - X_train.mean(0)) / X_train.std(0)
pred_test = model(X_test_norm)
correct = (torch.argmax(pred_test, dim=1) == y_test).float()
accuracy = correct.mean()
print(f'Test Acc.: {accuracy:.4f}')

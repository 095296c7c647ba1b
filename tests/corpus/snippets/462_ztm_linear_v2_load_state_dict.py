# after: Zero to Mastery "Learn PyTorch" 01 workflow, "Putting it all together" (LinearRegressionModelV2 with nn.Linear(1, 1), device-agnostic code on the CPU, training 200 epochs, then a loaded_model_1 given model_1.state_dict() and compared under inference_mode)
# expect: match
import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using device: {device}")
weight, bias = 0.7, 0.3
X = torch.arange(0, 1, 0.02).unsqueeze(dim=1)
y = weight * X + bias
train_split = int(0.8 * len(X))
X_train, y_train = X[:train_split].to(device), y[:train_split].to(device)
X_test, y_test = X[train_split:].to(device), y[train_split:].to(device)


class LinearRegressionModelV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear_layer = nn.Linear(in_features=1, out_features=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear_layer(x)


torch.manual_seed(42)
model_1 = LinearRegressionModelV2()
model_1.to(device)
print(model_1, model_1.state_dict())
loss_fn = nn.L1Loss()
optimizer = torch.optim.SGD(params=model_1.parameters(), lr=0.01)
torch.manual_seed(42)
epochs = 200
for epoch in range(epochs):
    model_1.train()
    y_pred = model_1(X_train)
    loss = loss_fn(y_pred, y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model_1.eval()
    with torch.inference_mode():
        test_pred = model_1(X_test)
        test_loss = loss_fn(test_pred, y_test)
    if epoch % 50 == 0:
        print(f"Epoch: {epoch} | Train loss: {loss} | Test loss: {test_loss}")
print(model_1.state_dict())

loaded_model_1 = LinearRegressionModelV2()
loaded_model_1.load_state_dict(model_1.state_dict())
loaded_model_1.to(device)
loaded_model_1.eval()
with torch.inference_mode():
    y_preds = model_1(X_test)
    loaded_model_1_preds = loaded_model_1(X_test)
print(y_preds == loaded_model_1_preds)

# after: "Programming PyTorch for Deep Learning" (Ian Pointer) ch. 2 (SimpleNet with fc1 = nn.Linear(12288, 84), fc2, fc3 and x.view(-1, 12288), the book's train(model, optimizer, loss_fn, train_loader, val_loader, epochs=20, device="cpu") printing 'Epoch: {}, Training Loss: {:.2f}, Validation Loss: {:.2f}, accuracy = {:.2f}', torch.eq(torch.max(F.softmax(output, dim=1), dim=1)[1], targets).view(-1), and copy.deepcopy-free saving with state_dict), here on 3x8x8 images instead of 3x64x64)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(16)


class SimpleNet(nn.Module):
    def __init__(self):
        super(SimpleNet, self).__init__()
        self.fc1 = nn.Linear(192, 84)
        self.fc2 = nn.Linear(84, 50)
        self.fc3 = nn.Linear(50, 2)

    def forward(self, x):
        x = x.view(-1, 192)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def train(model, optimizer, loss_fn, train_loader, val_loader, epochs=20, device="cpu"):
    for epoch in range(epochs):
        training_loss = 0.0
        valid_loss = 0.0
        model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            inputs, targets = batch
            inputs = inputs.to(device)
            targets = targets.to(device)
            output = model(inputs)
            loss = loss_fn(output, targets)
            loss.backward()
            optimizer.step()
            training_loss += loss.data.item() * inputs.size(0)
        training_loss /= len(train_loader.dataset)

        model.eval()
        num_correct = 0
        num_examples = 0
        for batch in val_loader:
            inputs, targets = batch
            inputs = inputs.to(device)
            output = model(inputs)
            targets = targets.to(device)
            loss = loss_fn(output, targets)
            valid_loss += loss.data.item() * inputs.size(0)
            correct = torch.eq(torch.max(F.softmax(output, dim=1), dim=1)[1], targets).view(-1)
            num_correct += torch.sum(correct).item()
            num_examples += correct.shape[0]
        valid_loss /= len(val_loader.dataset)
        print(
            "Epoch: {}, Training Loss: {:.2f}, Validation Loss: {:.2f}, accuracy = {:.2f}".format(
                epoch, training_loss, valid_loss, num_correct / num_examples
            )
        )


train_data = torch.utils.data.TensorDataset(torch.randn(24, 3, 8, 8), torch.randint(0, 2, (24,)))
val_data = torch.utils.data.TensorDataset(torch.randn(8, 3, 8, 8), torch.randint(0, 2, (8,)))
train_data_loader = torch.utils.data.DataLoader(train_data, batch_size=8)
val_data_loader = torch.utils.data.DataLoader(val_data, batch_size=8)
simplenet = SimpleNet()
optimizer = optim.Adam(simplenet.parameters(), lr=0.001)
if torch.cuda.is_available():
    device = torch.device("cuda")
else:
    device = torch.device("cpu")
simplenet.to(device)
train(simplenet, optimizer, torch.nn.CrossEntropyLoss(), train_data_loader, val_data_loader, epochs=3, device=device)
labels = ["cat", "fish"]
img = torch.randn(3, 8, 8).unsqueeze(0)
prediction = F.softmax(simplenet(img), dim=1)
prediction = prediction.argmax()
print(labels[prediction])

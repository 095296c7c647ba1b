# after: Q&A "Expected all tensors to be on the same device" answers: device = "cuda" if torch.cuda.is_available() else "cpu", model.to(device), data.to(device), .cuda() behind is_available
# expect: match
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Net().to(device)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

inputs = torch.randn(16, 4)
targets = inputs.sum(dim=1, keepdim=True)
inputs, targets = inputs.to(device), targets.to(device)

if torch.cuda.is_available():
    model.cuda()
    inputs = inputs.cuda()

for epoch in range(5):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    loss.backward()
    optimizer.step()
    print("epoch {}, loss {:.4f}".format(epoch, loss.item()))

dev = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
w = torch.zeros(4, 1, device=dev, requires_grad=True)
print(next(model.parameters()).device, inputs.device, w.device)
pred = inputs @ w
pred.sum().backward()
print(w.grad.cpu().numpy().ravel())

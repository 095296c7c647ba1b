# after: PyTorch transfer-learning tutorial's train_model (with torch.set_grad_enabled(phase == 'train'), and set_grad_enabled(False) called as a function then restored)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = {"train": (torch.randn(6, 3), torch.tensor([0, 1, 1, 0, 1, 0])), "val": (torch.randn(4, 3), torch.tensor([1, 0, 0, 1]))}
for epoch in range(2):
    for phase in ["train", "val"]:
        if phase == "train":
            model.train()
        else:
            model.eval()
        inputs, labels = data[phase]
        optimizer.zero_grad()
        with torch.set_grad_enabled(phase == "train"):
            outputs = model(inputs)
            _, preds = torch.max(outputs, 1)
            loss = criterion(outputs, labels)
            if phase == "train":
                loss.backward()
                optimizer.step()
        print(epoch, phase, loss.item(), loss.requires_grad, torch.sum(preds == labels).item())

torch.set_grad_enabled(False)
frozen = model(torch.ones(1, 3))
torch.set_grad_enabled(True)
print(frozen.requires_grad, model(torch.ones(1, 3)).requires_grad)

# after: the PyTorch tutorial "Adversarial Example Generation" (a small LeNet-style Net with log_softmax, data.requires_grad = True, F.nll_loss, model.zero_grad(), data_grad = data.grad.data, fgsm_attack with data_grad.sign(), perturbed_image clamped to [0, 1], predictions with output.max(1, keepdim=True)[1], over several epsilons)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc1 = nn.Linear(8 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 1))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


model = Net()
model.eval()
images = torch.rand(6, 1, 10, 10)
labels = torch.randint(0, 10, (6,))
epsilons = [0, 0.05, 0.1, 0.3]

for epsilon in epsilons:
    correct = 0
    for data, target in zip(images, labels):
        data, target = data.unsqueeze(0), target.unsqueeze(0)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        if init_pred.item() != target.item():
            continue
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        perturbed_data = fgsm_attack(data, epsilon, data_grad)
        output = model(perturbed_data)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(images)}")

data = images[:1].clone().requires_grad_(True)
loss = F.nll_loss(model(data), labels[:1])
loss.backward()
adv = fgsm_attack(data, 0.1, data.grad)
print(adv.min().item() >= 0, adv.max().item() <= 1)
print(model(adv).argmax(1), model(data).argmax(1))

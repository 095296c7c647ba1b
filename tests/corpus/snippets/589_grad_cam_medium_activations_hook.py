# after: the widely shared "Implementing Grad-CAM in PyTorch" post (the network keeps self.gradients, def activations_hook(self, grad): self.gradients = grad, h = x.register_hook(self.activations_hook) inside forward, get_activations_gradient / get_activations, pred[:, idx].backward(), pooled_gradients = torch.mean(gradients, dim=[0, 2, 3]), each channel of the activations weighted in place, heatmap = torch.mean(activations, dim=1).squeeze(), clamped at 0 and divided by its max)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(6)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.features_conv = nn.Sequential(
            nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU()
        )
        self.max_pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.classifier = nn.Sequential(nn.Linear(6 * 4 * 4, 8), nn.ReLU(), nn.Linear(8, 3))
        self.gradients = None

    def activations_hook(self, grad):
        self.gradients = grad

    def forward(self, x):
        x = self.features_conv(x)
        h = x.register_hook(self.activations_hook)
        x = self.max_pool(x)
        x = x.view((1, -1))
        x = self.classifier(x)
        return x

    def get_activations_gradient(self):
        return self.gradients

    def get_activations(self, x):
        return self.features_conv(x)


net = Net()
net.eval()
img = torch.rand(1, 3, 8, 8)
pred = net(img)
idx = pred.argmax(dim=1).item()
pred[:, idx].backward()
gradients = net.get_activations_gradient()
pooled_gradients = torch.mean(gradients, dim=[0, 2, 3])
activations = net.get_activations(img).detach()
for i in range(6):
    activations[:, i, :, :] *= pooled_gradients[i]
heatmap = torch.mean(activations, dim=1).squeeze()
heatmap = torch.clamp(heatmap, min=0)
heatmap /= torch.max(heatmap)
print(idx)
print(heatmap)

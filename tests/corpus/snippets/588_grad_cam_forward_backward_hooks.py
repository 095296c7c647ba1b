# after: Grad-CAM implementations with hooks (a GradCAM class registering a forward hook that stores the target layer's activations and register_full_backward_hook storing grad_output[0], model.zero_grad(), the class score's backward, weights = gradients.mean(dim=(2, 3), keepdim=True), cam = F.relu((weights * activations).sum(dim=1, keepdim=True)), F.interpolate to the input size with mode="bilinear" and align_corners=False, min-max normalised; the handles removed)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU()
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1))


class GradCAM:
    def __init__(self, model, target_layer):
        self.model = model
        self.activations = None
        self.gradients = None
        self.handles = [
            target_layer.register_forward_hook(self.save_activation),
            target_layer.register_full_backward_hook(self.save_gradient),
        ]

    def save_activation(self, module, input, output):
        self.activations = output.detach()

    def save_gradient(self, module, grad_input, grad_output):
        self.gradients = grad_output[0].detach()

    def __call__(self, x, class_idx=None):
        self.model.zero_grad()
        output = self.model(x)
        if class_idx is None:
            class_idx = output.argmax(dim=1).item()
        output[0, class_idx].backward()
        weights = self.gradients.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * self.activations).sum(dim=1, keepdim=True))
        cam = F.interpolate(cam, size=x.shape[2:], mode="bilinear", align_corners=False)
        cam = cam - cam.min()
        cam = cam / (cam.max() + 1e-8)
        return cam, class_idx

    def remove(self):
        for h in self.handles:
            h.remove()


model = SmallCNN()
model.eval()
image = torch.rand(1, 3, 8, 8)
grad_cam = GradCAM(model, model.features[2])
cam, idx = grad_cam(image)
grad_cam.remove()
print(idx, cam.shape)
print(cam[0, 0, ::2, ::2])

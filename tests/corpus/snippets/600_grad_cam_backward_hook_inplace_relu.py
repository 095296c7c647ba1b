# after: Grad-CAM questions "Output 0 of BackwardHookFunctionBackward is a view and is being modified inplace" (register_full_backward_hook on a conv layer that a nn.ReLU(inplace=True) follows, as in torchvision's VGG and ResNet blocks)
# expect: explained view-inplace
# mentions: inplace=True
import torch
import torch.nn as nn

torch.manual_seed(6)
model = nn.Sequential(
    nn.Conv2d(3, 4, 3, padding=1),
    nn.ReLU(inplace=True),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(4, 3),
)
gradients = []


def save_gradient(module, grad_input, grad_output):
    gradients.append(grad_output[0])


handle = model[0].register_full_backward_hook(save_gradient)
image = torch.rand(1, 3, 8, 8)
output = model(image)
output[0, output.argmax()].backward()
print(gradients[0].shape)

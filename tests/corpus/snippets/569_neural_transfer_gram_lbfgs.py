# after: the PyTorch tutorial "Neural Transfer Using PyTorch" (ContentLoss and StyleLoss modules that store self.loss and return their input, gram_matrix with a.view(b * c, d * e) and G.div(a * b * c * d), a Normalization module, the losses inserted into an nn.Sequential after chosen convs, input_img.requires_grad_(True), the model's own requires_grad_(False), optim.LBFGS([input_img]), a closure clamping input_img.data in torch.no_grad, run for a few steps on tiny images)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
content_img = torch.rand(1, 3, 8, 8)
style_img = torch.rand(1, 3, 8, 8)


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class ContentLoss(nn.Module):
    def __init__(self, target):
        super(ContentLoss, self).__init__()
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super(Normalization, self).__init__()
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


cnn = nn.Sequential(
    nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU()
).eval()
normalization = Normalization([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
model = nn.Sequential(normalization)
content_losses, style_losses = [], []
i = 0
for layer in cnn.children():
    if isinstance(layer, nn.Conv2d):
        i += 1
        name = "conv_{}".format(i)
    elif isinstance(layer, nn.ReLU):
        name = "relu_{}".format(i)
        layer = nn.ReLU(inplace=False)
    model.add_module(name, layer)
    if name == "conv_2":
        target = model(content_img).detach()
        content_loss = ContentLoss(target)
        model.add_module("content_loss_{}".format(i), content_loss)
        content_losses.append(content_loss)
    if name in ("conv_1", "conv_2"):
        target_feature = model(style_img).detach()
        style_loss = StyleLoss(target_feature)
        model.add_module("style_loss_{}".format(i), style_loss)
        style_losses.append(style_loss)

input_img = content_img.clone()
input_img.requires_grad_(True)
model.eval()
model.requires_grad_(False)
optimizer = optim.LBFGS([input_img])
style_weight, content_weight = 1000000, 1
run = [0]
while run[0] <= 6:

    def closure():
        with torch.no_grad():
            input_img.clamp_(0, 1)
        optimizer.zero_grad()
        model(input_img)
        style_score = 0
        content_score = 0
        for sl in style_losses:
            style_score += sl.loss
        for cl in content_losses:
            content_score += cl.loss
        style_score *= style_weight
        content_score *= content_weight
        loss = style_score + content_score
        loss.backward()
        run[0] += 1
        if run[0] % 3 == 0:
            print("run {}:".format(run))
            print(
                "Style Loss : {:4f} Content Loss: {:4f}".format(
                    style_score.item(), content_score.item()
                )
            )
        return style_score + content_score

    optimizer.step(closure)

with torch.no_grad():
    input_img.clamp_(0, 1)
print(input_img.shape, input_img.min().item() >= 0)

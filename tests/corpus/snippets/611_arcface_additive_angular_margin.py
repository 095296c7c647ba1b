# after: face-recognition ArcFace heads (ArcMarginProduct with an nn.Parameter weight initialised by nn.init.xavier_uniform_, cosine = F.linear(F.normalize(input), F.normalize(self.weight)), sine = torch.sqrt((1.0 - torch.pow(cosine, 2)).clamp(0, 1)), phi = cosine * cos_m - sine * sin_m, torch.where(cosine > th, phi, cosine - mm), one_hot with scatter_(1, label.view(-1, 1).long(), 1), output *= s, then CrossEntropyLoss; and CosFace's cosine - m)
# expect: match
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(19)


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features, out_features, s=30.0, m=0.50, easy_margin=False):
        super(ArcMarginProduct, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.s = s
        self.m = m
        self.weight = nn.Parameter(torch.FloatTensor(out_features, in_features))
        nn.init.xavier_uniform_(self.weight)
        self.easy_margin = easy_margin
        self.cos_m = math.cos(m)
        self.sin_m = math.sin(m)
        self.th = math.cos(math.pi - m)
        self.mm = math.sin(math.pi - m) * m

    def forward(self, input, label):
        cosine = F.linear(F.normalize(input), F.normalize(self.weight))
        sine = torch.sqrt((1.0 - torch.pow(cosine, 2)).clamp(0, 1))
        phi = cosine * self.cos_m - sine * self.sin_m
        if self.easy_margin:
            phi = torch.where(cosine > 0, phi, cosine)
        else:
            phi = torch.where(cosine > self.th, phi, cosine - self.mm)
        one_hot = torch.zeros(cosine.size())
        one_hot.scatter_(1, label.view(-1, 1).long(), 1)
        output = (one_hot * phi) + ((1.0 - one_hot) * cosine)
        output *= self.s
        return output


backbone = nn.Sequential(nn.Linear(10, 16), nn.PReLU(), nn.Linear(16, 8))
metric_fc = ArcMarginProduct(8, 4, s=16.0, m=0.3)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(
    [{"params": backbone.parameters()}, {"params": metric_fc.parameters()}],
    lr=0.1,
    weight_decay=5e-4,
)
data = torch.randn(8, 10)
label = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3])
for step in range(4):
    feature = backbone(data)
    output = metric_fc(feature, label)
    loss = criterion(output, label)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    acc = (output.argmax(dim=1) == label).float().mean()
    print(step, loss.item(), acc.item())
cosface = F.linear(F.normalize(feature), F.normalize(metric_fc.weight))
cosface = 16.0 * (cosface - 0.35 * F.one_hot(label, 4))
print(criterion(cosface, label))
print(backbone[1].weight)

# after: mixup and CutMix training code (lam = np.random.beta(alpha, alpha) from a seeded NumPy, index = torch.randperm(batch_size), mixed_x = lam * x + (1 - lam) * x[index, :], mixup_criterion as lam * criterion(pred, y_a) + (1 - lam) * criterion(pred, y_b); CutMix's rand_bbox with np.sqrt(1. - lam), np.random.randint and np.clip, the box pasted with x[:, :, bbx1:bbx2, bby1:bby2] = x[index, :, bbx1:bbx2, bby1:bby2], lam adjusted to the box's area)
# expect: match
import numpy as np
import torch
import torch.nn as nn

np.random.seed(0)
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 8 * 8, 4)
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def mixup_data(x, y, alpha=1.0):
    lam = np.random.beta(alpha, alpha) if alpha > 0 else 1
    batch_size = x.size()[0]
    index = torch.randperm(batch_size)
    mixed_x = lam * x + (1 - lam) * x[index, :]
    y_a, y_b = y, y[index]
    return mixed_x, y_a, y_b, lam


def mixup_criterion(criterion, pred, y_a, y_b, lam):
    return lam * criterion(pred, y_a) + (1 - lam) * criterion(pred, y_b)


def rand_bbox(size, lam):
    W, H = size[2], size[3]
    cut_rat = np.sqrt(1.0 - lam)
    cut_w, cut_h = int(W * cut_rat), int(H * cut_rat)
    cx, cy = np.random.randint(W), np.random.randint(H)
    bbx1 = np.clip(cx - cut_w // 2, 0, W)
    bby1 = np.clip(cy - cut_h // 2, 0, H)
    bbx2 = np.clip(cx + cut_w // 2, 0, W)
    bby2 = np.clip(cy + cut_h // 2, 0, H)
    return bbx1, bby1, bbx2, bby2


inputs = torch.rand(6, 1, 8, 8)
targets = torch.tensor([0, 1, 2, 3, 1, 2])
for step in range(4):
    if step % 2 == 0:
        mixed, y_a, y_b, lam = mixup_data(inputs, targets, alpha=0.4)
    else:
        lam = np.random.beta(1.0, 1.0)
        index = torch.randperm(inputs.size(0))
        y_a, y_b = targets, targets[index]
        bbx1, bby1, bbx2, bby2 = rand_bbox(inputs.size(), lam)
        mixed = inputs.clone()
        mixed[:, :, bbx1:bbx2, bby1:bby2] = inputs[index, :, bbx1:bbx2, bby1:bby2]
        lam = 1 - ((bbx2 - bbx1) * (bby2 - bby1) / (inputs.size()[-1] * inputs.size()[-2]))
    outputs = model(mixed)
    loss = mixup_criterion(criterion, outputs, y_a, y_b, lam)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(float(lam), 4), loss.item())

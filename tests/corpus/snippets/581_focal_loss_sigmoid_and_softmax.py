# after: focal-loss implementations (torchvision.ops.sigmoid_focal_loss written out: p = torch.sigmoid(inputs), ce_loss = F.binary_cross_entropy_with_logits(..., reduction="none"), p_t = p * targets + (1 - p) * (1 - targets), loss = ce_loss * ((1 - p_t) ** gamma), alpha_t; and the multi-class FocalLoss module with logpt = F.log_softmax(input, dim=1).gather(1, target.view(-1, 1)), pt = logpt.exp(), an alpha tensor indexed with target, loss = -1 * (1 - pt) ** gamma * logpt)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(9)


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2, reduction="none"):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


class FocalLoss(nn.Module):
    def __init__(self, gamma=0, alpha=None, size_average=True):
        super(FocalLoss, self).__init__()
        self.gamma = gamma
        self.alpha = alpha
        if isinstance(alpha, (float, int)):
            self.alpha = torch.Tensor([alpha, 1 - alpha])
        if isinstance(alpha, list):
            self.alpha = torch.Tensor(alpha)
        self.size_average = size_average

    def forward(self, input, target):
        target = target.view(-1, 1)
        logpt = F.log_softmax(input, dim=1)
        logpt = logpt.gather(1, target)
        logpt = logpt.view(-1)
        pt = logpt.data.exp()
        if self.alpha is not None:
            if self.alpha.type() != input.data.type():
                self.alpha = self.alpha.type_as(input.data)
            at = self.alpha.gather(0, target.data.view(-1))
            logpt = logpt * at
        loss = -1 * (1 - pt) ** self.gamma * logpt
        if self.size_average:
            return loss.mean()
        return loss.sum()


logits = torch.randn(6, 3, requires_grad=True)
labels = torch.tensor([0, 2, 1, 1, 0, 2])
multi = FocalLoss(gamma=2, alpha=[0.5, 0.25, 0.25])(logits, labels)
plain = FocalLoss(gamma=0)(logits, labels)
print(multi, plain, F.cross_entropy(logits, labels))

scores = torch.randn(6, 2, requires_grad=True)
targets = torch.randint(0, 2, (6, 2)).float()
binary = sigmoid_focal_loss(scores, targets, reduction="mean")
print(binary)
(multi + binary).backward()
print(logits.grad)
print(scores.grad)

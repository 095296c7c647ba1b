# after: label-smoothing posts (nn.CrossEntropyLoss(label_smoothing=0.1) next to a LabelSmoothingCrossEntropy written by hand: log_preds = F.log_softmax(preds, dim=-1), loss = -log_preds.sum(dim=-1).mean(), nll = F.nll_loss(log_preds, target), (1 - eps) * nll + eps * loss / n; the smoothed one-hot targets with torch.full_like and scatter_, cross entropy with probability targets; class weights with ignore_index)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(5)


class LabelSmoothingCrossEntropy(nn.Module):
    def __init__(self, eps=0.1, reduction="mean"):
        super().__init__()
        self.eps, self.reduction = eps, reduction

    def forward(self, output, target):
        c = output.size()[-1]
        log_preds = F.log_softmax(output, dim=-1)
        if self.reduction == "sum":
            loss = -log_preds.sum()
        else:
            loss = -log_preds.sum(dim=-1)
            if self.reduction == "mean":
                loss = loss.mean()
        return loss * self.eps / c + (1 - self.eps) * F.nll_loss(
            log_preds, target, reduction=self.reduction
        )


logits = torch.randn(5, 4, requires_grad=True)
target = torch.tensor([0, 3, 1, 1, 2])
builtin = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target)
by_hand = LabelSmoothingCrossEntropy(0.1)(logits, target)
print(builtin, by_hand, torch.allclose(builtin, by_hand))

smoothing, n = 0.1, logits.size(1)
true_dist = torch.full_like(logits, smoothing / (n - 1))
true_dist.scatter_(1, target.unsqueeze(1), 1.0 - smoothing)
soft = torch.sum(-true_dist * F.log_softmax(logits, dim=-1), dim=-1).mean()
print(soft, F.cross_entropy(logits, true_dist))

weights = torch.tensor([1.0, 2.0, 0.5, 1.0])
masked = torch.tensor([0, -100, 1, 1, 2])
weighted = F.cross_entropy(logits, masked, weight=weights, ignore_index=-100, label_smoothing=0.2)
print(weighted)
(builtin + by_hand + soft + weighted).backward()
print(logits.grad)

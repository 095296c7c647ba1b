# after: knowledge-distillation code using nn.KLDivLoss() with its default reduction='mean' (torch warns that 'mean' divides by the number of elements, not the batch size, and that 'batchmean' is the KL divergence's definition)
# expect: match warns kldiv-mean
# mentions: batchmean | criterion
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(17)
student_logits = torch.randn(4, 5, requires_grad=True)
teacher_logits = torch.randn(4, 5)
T = 2.0
criterion = nn.KLDivLoss()
loss = (
    criterion(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1))
    * T
    * T
)
loss.backward()
print(loss)
print(student_logits.grad)

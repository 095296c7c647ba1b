# after: the PyTorch tutorial "Knowledge Distillation" and Hinton-style KD code (a bigger teacher in eval under torch.no_grad, a small student, soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1), soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1), soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T**2), and the same with nn.KLDivLoss(reduction="batchmean") and log_target=True, plus label loss with soft_target_loss_weight and ce_loss_weight)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(17)
teacher = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 5))
student = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 5))
optimizer = torch.optim.Adam(student.parameters(), lr=0.01)
ce_loss = nn.CrossEntropyLoss()
kl = nn.KLDivLoss(reduction="batchmean")
kl_log = nn.KLDivLoss(reduction="batchmean", log_target=True)
T, soft_target_loss_weight, ce_loss_weight = 2.0, 0.25, 0.75
inputs = torch.randn(10, 8)
labels = torch.randint(0, 5, (10,))
teacher.eval()
student.train()
for epoch in range(4):
    optimizer.zero_grad()
    with torch.no_grad():
        teacher_logits = teacher(inputs)
    student_logits = student(inputs)
    soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
    soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
    soft_targets_loss = (
        torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T**2)
    )
    kd = kl(soft_prob, soft_targets) * T * T
    kd_log = kl_log(soft_prob, F.log_softmax(teacher_logits / T, dim=-1)) * T * T
    label_loss = ce_loss(student_logits, labels)
    loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
    loss.backward()
    optimizer.step()
    print(epoch, loss.item(), soft_targets_loss.item(), kd.item(), kd_log.item())
print(F.kl_div(soft_prob, soft_targets, reduction="none").sum(dim=1))

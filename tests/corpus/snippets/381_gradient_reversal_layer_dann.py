# after: domain-adversarial training (DANN) implementations on GitHub (GradReverse autograd.Function: forward returns x.view_as(x), backward returns grad_output.neg() * alpha, None; a feature extractor shared by a label classifier and a domain classifier)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function

class GradReverse(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None

def grad_reverse(x, alpha=1.0):
    return GradReverse.apply(x, alpha)

class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8), nn.ReLU())
        self.class_classifier = nn.Linear(8, 3)
        self.domain_classifier = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, input_data, alpha):
        feature = self.feature(input_data)
        reverse_feature = grad_reverse(feature, alpha)
        class_output = self.class_classifier(feature)
        domain_output = self.domain_classifier(reverse_feature)
        return class_output, domain_output

torch.manual_seed(0)
model = DANN()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
src_x, src_y = torch.randn(10, 6), torch.randint(0, 3, (10,))
tgt_x = torch.randn(10, 6) + 0.5
for epoch in range(3):
    p = epoch / 3
    alpha = 2. / (1. + torch.exp(torch.tensor(-10 * p)).item()) - 1
    class_out, domain_src = model(src_x, alpha)
    _, domain_tgt = model(tgt_x, alpha)
    err_s_label = F.cross_entropy(class_out, src_y)
    err_s_domain = F.cross_entropy(domain_src, torch.zeros(10, dtype=torch.long))
    err_t_domain = F.cross_entropy(domain_tgt, torch.ones(10, dtype=torch.long))
    err = err_s_label + err_s_domain + err_t_domain
    optimizer.zero_grad()
    err.backward()
    optimizer.step()
    print(f'epoch {epoch} alpha {alpha:.4f} label {err_s_label.item():.4f} domain {err_s_domain.item() + err_t_domain.item():.4f}')

x = torch.randn(4, 3, requires_grad=True)
y = grad_reverse(x, 0.5)
(y * y).sum().backward()
print(x.grad, -0.5 * 2 * x.detach())
print(y.grad_fn.name())

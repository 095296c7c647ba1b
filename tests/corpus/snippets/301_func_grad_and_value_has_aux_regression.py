# after: torch.func "grad_and_value" in linear-regression blog posts (argnums=(0, 1), has_aux returning the predictions, a manual update)
# expect: match
import torch
from torch.func import grad_and_value

torch.manual_seed(0)
x = torch.randn(20, 3)
true_w = torch.tensor([1.5, -2.0, 0.5])
y = x @ true_w + 0.3

def compute_loss(weights, bias, x, y):
    pred = x @ weights + bias
    loss = ((pred - y) ** 2).mean()
    return loss, pred

weights = torch.zeros(3)
bias = torch.zeros(())
step = grad_and_value(compute_loss, argnums=(0, 1), has_aux=True)
for epoch in range(25):
    (g_w, g_b), (loss, pred) = step(weights, bias, x, y)
    weights = weights - 0.1 * g_w
    bias = bias - 0.1 * g_b
    if epoch % 5 == 0:
        print(epoch, round(loss.item(), 5))
print(weights, bias, pred[:3])

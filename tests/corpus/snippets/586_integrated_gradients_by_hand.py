# after: integrated-gradients posts written without Captum (a black baseline, scaled_inputs = [baseline + (float(i) / steps) * (inputs - baseline) for i in range(0, steps + 1)], the gradients of the target class at each in one batch with torch.autograd.grad, avg_grads from a trapezoidal Riemann sum, integrated_grad = (inputs - baseline) * avg_grads, and the completeness check against f(x) - f(baseline))
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
model = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 3))
model.eval()


def calculate_outputs_and_gradients(inputs, model, target_label_idx):
    batch = torch.cat(inputs, dim=0).requires_grad_(True)
    output = F.softmax(model(batch), dim=1)
    target = output[:, target_label_idx]
    (gradients,) = torch.autograd.grad(target.sum(), batch)
    return gradients, output


def integrated_gradients(inputs, model, target_label_idx, baseline, steps=50):
    scaled_inputs = [
        baseline + (float(i) / steps) * (inputs - baseline) for i in range(0, steps + 1)
    ]
    grads, _ = calculate_outputs_and_gradients(scaled_inputs, model, target_label_idx)
    avg_grads = ((grads[:-1] + grads[1:]) / 2.0).mean(dim=0, keepdim=True)
    integrated_grad = (inputs - baseline) * avg_grads
    return integrated_grad


x = torch.randn(1, 5)
baseline = torch.zeros(1, 5)
with torch.no_grad():
    target_label_idx = model(x).argmax(dim=1).item()
attributions = integrated_gradients(x, model, target_label_idx, baseline, steps=64)
print(attributions)
with torch.no_grad():
    f = F.softmax(model(torch.cat([x, baseline])), dim=1)[:, target_label_idx]
print(attributions.sum().item(), (f[0] - f[1]).item())
print(torch.isclose(attributions.sum(), f[0] - f[1], atol=1e-3))

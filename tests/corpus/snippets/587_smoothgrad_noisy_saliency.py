# after: SmoothGrad write-ups (stdev = stdev_spread * (x.max() - x.min()), n_samples noisy copies x + torch.normal(0, stdev, x.shape) each with requires_grad, the class score backpropagated, total_gradients accumulated with magnitude=True squaring, divided by n_samples; then VarGrad as the variance of the same gradients)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(8)
model = nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 4))
model.eval()
x = torch.rand(1, 1, 6, 6)


def smooth_grad(x, index, stdev_spread=0.15, n_samples=8, magnitude=True):
    stdev = stdev_spread * (x.max() - x.min()).item()
    total_gradients = torch.zeros_like(x)
    grads = []
    for i in range(n_samples):
        noise = torch.normal(0, stdev, x.shape)
        x_plus_noise = (x + noise).requires_grad_(True)
        output = model(x_plus_noise)
        one_hot = torch.zeros_like(output)
        one_hot[0][index] = 1
        model.zero_grad()
        output.backward(gradient=one_hot)
        grad = x_plus_noise.grad.clone()
        grads.append(grad)
        if magnitude:
            total_gradients += grad * grad
        else:
            total_gradients += grad
    return total_gradients / n_samples, torch.stack(grads).var(dim=0)


with torch.no_grad():
    index = model(x).argmax().item()
smooth, vargrad = smooth_grad(x, index)
print(index)
print(smooth[0, 0])
print(vargrad.sum())
print(model[0].weight.grad.abs().sum())

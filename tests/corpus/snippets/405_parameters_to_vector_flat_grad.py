# after: natural-gradient / TRPO / line-search code (torch.nn.utils.parameters_to_vector of the weights, the flat gradient torch.cat([p.grad.view(-1) ...]), a step along it written back with vector_to_parameters, autograd.grad with the parameters for a flat gradient, and a backtracking line search)
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(21)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(12, 3)
y = torch.randn(12, 1)

def loss_fn():
    return nn.functional.mse_loss(model(x), y)

params = parameters_to_vector(model.parameters())
print(params.shape, params.requires_grad, params.grad_fn is not None)
loss = loss_fn()
loss.backward()
flat_grad = torch.cat([p.grad.view(-1) for p in model.parameters()])
grads = torch.autograd.grad(loss_fn(), list(model.parameters()))
flat2 = torch.cat([g.reshape(-1) for g in grads])
print(flat_grad.norm(), torch.equal(flat_grad, flat2))

def linesearch(x0, fullstep, expected_improve_rate, max_backtracks=5, accept_ratio=0.1):
    with torch.no_grad():
        fval = loss_fn().item()
        for stepfrac in [0.5 ** k for k in range(max_backtracks)]:
            xnew = x0 + stepfrac * fullstep
            vector_to_parameters(xnew, model.parameters())
            newfval = loss_fn().item()
            actual_improve = fval - newfval
            expected_improve = expected_improve_rate * stepfrac
            ratio = actual_improve / expected_improve
            print(f"stepfrac {stepfrac} ratio {ratio:.4f}")
            if ratio > accept_ratio and actual_improve > 0:
                return True, xnew
        vector_to_parameters(x0, model.parameters())
        return False, x0

x0 = params.detach()
fullstep = -1.0 * flat_grad
ok, new_params = linesearch(x0, fullstep, (flat_grad * fullstep).sum().neg().item())
print(ok, loss_fn().item(), torch.equal(parameters_to_vector(model.parameters()), new_params))
print(model[0].weight.requires_grad, model[0].weight.is_leaf)
model.zero_grad()
loss_fn().backward()
print(model[2].bias.grad)

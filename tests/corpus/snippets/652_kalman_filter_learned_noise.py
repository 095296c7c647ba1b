# after: "differentiable Kalman filter" notebooks (a 1-D constant-velocity model with F = [[1, dt], [0, 1]] and H = [[1, 0]], the process and measurement noise learned as log_q and log_r leaves, the predict step x = F @ x, P = F @ P @ F.T + Q and the update with the innovation y = z - H @ x, S = H @ P @ H.T + R, K = P @ H.T @ torch.linalg.inv(S), the negative log-likelihood of the innovations summed with torch.distributions.Normal(0, S.sqrt()).log_prob(y), minimised with Adam)
# expect: match
import torch
from torch.distributions import Normal

torch.manual_seed(28)
dt = 0.1
F_mat = torch.tensor([[1.0, dt], [0.0, 1.0]])
H = torch.tensor([[1.0, 0.0]])
true_pos = torch.cumsum(torch.full((30,), 0.5 * dt), 0) + 0.02 * torch.randn(30).cumsum(0)
measurements = true_pos + 0.1 * torch.randn(30)

log_q = torch.tensor(-4.0, requires_grad=True)
log_r = torch.tensor(-1.0, requires_grad=True)


def kalman_nll(measurements):
    Q = torch.exp(log_q) * torch.tensor([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
    R = torch.exp(log_r).reshape(1, 1)
    x = torch.zeros(2, 1)
    P = torch.eye(2)
    nll = torch.zeros(())
    estimates = []
    for z in measurements:
        x = F_mat @ x
        P = F_mat @ P @ F_mat.T + Q
        y = z.reshape(1, 1) - H @ x
        S = H @ P @ H.T + R
        K = P @ H.T @ torch.linalg.inv(S)
        x = x + K @ y
        P = (torch.eye(2) - K @ H) @ P
        nll = nll - Normal(0.0, S.sqrt().squeeze()).log_prob(y.squeeze())
        estimates.append(x[0, 0])
    return nll, torch.stack(estimates)


optimizer = torch.optim.Adam([log_q, log_r], lr=0.1)
for it in range(6):
    optimizer.zero_grad()
    nll, estimates = kalman_nll(measurements)
    nll.backward()
    optimizer.step()
    print(it, f"{nll.item():.4f}", f"{log_q.item():.4f}", f"{log_r.item():.4f}")
print(estimates[-5:], log_r.grad)

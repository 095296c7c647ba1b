# after: hyperparameter-optimisation tutorials that differentiate through a closed-form solve (ridge regression w = torch.linalg.solve(X.T @ X + lam * I, X.T @ y) with lam = torch.exp(log_lam) as a leaf, the validation loss's gradient with respect to log_lam, a few gradient steps on it; torch.linalg.lstsq(X, y, driver="gelsd").solution compared with the normal equations and torch.linalg.pinv; the implicit-function formula dw/dlam = -(X^T X + lam I)^{-1} w checked by hand)
# expect: match
import torch

torch.manual_seed(8)
n, d = 30, 5
w_true = torch.randn(d, 1)
X_train = torch.randn(n, d)
y_train = X_train @ w_true + 0.5 * torch.randn(n, 1)
X_val = torch.randn(15, d)
y_val = X_val @ w_true + 0.5 * torch.randn(15, 1)

sol = torch.linalg.lstsq(X_train, y_train, driver="gelsd").solution
normal = torch.linalg.solve(X_train.T @ X_train, X_train.T @ y_train)
pinv = torch.linalg.pinv(X_train) @ y_train
print(torch.allclose(sol, normal, atol=1e-4), torch.allclose(sol, pinv, atol=1e-4))

log_lam = torch.tensor(0.0, requires_grad=True)
opt = torch.optim.Adam([log_lam], lr=0.3)
I = torch.eye(d)
for step in range(5):
    lam = torch.exp(log_lam)
    A = X_train.T @ X_train + lam * I
    w = torch.linalg.solve(A, X_train.T @ y_train)
    val_loss = ((X_val @ w - y_val) ** 2).mean()
    opt.zero_grad()
    val_loss.backward()
    print(step, round(lam.item(), 5), val_loss.item(), log_lam.grad.item())
    opt.step()

lam = torch.exp(log_lam.detach()).requires_grad_()
A = X_train.T @ X_train + lam * I
w = torch.linalg.solve(A, X_train.T @ y_train)
dw_dlam = torch.autograd.grad(w.sum(), lam)[0]
by_hand = -(torch.linalg.inv(A.detach()) @ w.detach()).sum()
print(dw_dlam, by_hand, torch.allclose(dw_dlam, by_hand, atol=1e-5))

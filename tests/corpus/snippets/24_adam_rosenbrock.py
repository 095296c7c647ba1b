# after: optimisation tutorials "minimise the Rosenbrock function with torch.optim.Adam"
# expect: match
import torch


def rosenbrock(xy):
    x, y = xy
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


xy = torch.tensor([-1.5, 2.0], requires_grad=True)
optimizer = torch.optim.Adam([xy], lr=0.05)
for step in range(500):
    optimizer.zero_grad()
    loss = rosenbrock(xy)
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        print(f"step {step}: loss={loss.item():.5f} xy={xy.detach().tolist()}")
print(xy)

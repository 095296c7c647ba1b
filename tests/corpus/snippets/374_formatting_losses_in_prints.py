# after: training loops' print lines (f"{loss:.4f}" on a 0-d tensor, "%.3f" % loss.item(), round(), sci_mode=False, tolist, numpy of a detached grad)
# expect: match
import numpy as np
import torch
torch.set_printoptions(sci_mode=False, precision=3)
w = torch.tensor([0.001, 1234.5, -2.0], requires_grad=True)
loss = (w ** 2).mean()
loss.backward()
print(f"loss={loss:.4f} step={1:03d}")
print("loss %.3f" % loss.item(), round(loss.item(), 2))
print(f"{loss.item():>12.2e}|{w.grad.norm():.3f}")
print(w.grad, w.grad.tolist())
print(np.array(w.grad.detach()), np.round(w.detach().numpy(), 1))
print("grad:", w.grad.numpy().sum() > 0, type(loss.item()).__name__)
torch.set_printoptions(profile="default")

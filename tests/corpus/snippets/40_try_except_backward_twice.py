# after: PyTorch forum answers demonstrating "Trying to backward through the graph a second time" inside try/except
# expect: match
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 2).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("error:", str(e).split(".")[0])
finally:
    print("x.grad =", x.grad)

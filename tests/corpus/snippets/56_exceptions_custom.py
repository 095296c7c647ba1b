# after: defensive tutorial code with a custom exception class and raise/except
# expect: match
import torch


class ShapeError(ValueError):
    pass


def check(t):
    if t.dim() != 2:
        raise ShapeError(f"expected 2-D, got {t.dim()}-D")
    return t


x = torch.randn(3, requires_grad=True)
try:
    check(x)
except ShapeError as err:
    print("caught:", err)
y = check(x.unsqueeze(0)).pow(2).sum()
y.backward()

# after: "load your data from a CSV" snippets
# expect: refused
import torch

with open("data.csv") as f:
    rows = f.read()
x = torch.tensor([1.0], requires_grad=True)

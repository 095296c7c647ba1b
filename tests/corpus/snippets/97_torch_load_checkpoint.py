# after: PyTorch "Saving and Loading a General Checkpoint" (torch.load, then model.load_state_dict)
# expect: refused
# mentions: torch.load | files | Nothing ran
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

checkpoint = torch.load("checkpoint.pt")
model.load_state_dict(checkpoint["model_state_dict"])
optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
epoch = checkpoint["epoch"]

# after: PyTorch "Saving and Loading Models" torch.save(model.state_dict(), PATH)
# expect: refused
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
PATH = "model.pt"
torch.save(model.state_dict(), PATH)

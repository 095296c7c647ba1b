# after: the first cells of Colab/Kaggle PyTorch notebooks (print(torch.__version__) and numpy's, device selection with torch.cuda.is_available(), a set_seed helper seeding random, numpy and torch, torch.backends.cudnn.deterministic = True)
# expect: match
import random
import numpy as np
import torch
import torch.nn as nn

print("PyTorch version:", torch.__version__)
print("NumPy version:", np.__version__)
major, minor = (int(p) for p in torch.__version__.split(".")[:2])
print(major >= 1, minor >= 0)

def set_seed(seed=42):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False

set_seed(42)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using device: {device}")

model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 1)).to(device)
x = torch.from_numpy(np.random.rand(16, 4).astype(np.float32)).to(device)
y = torch.tensor([random.random() for _ in range(16)]).unsqueeze(1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.5f}")

# after: Q&A "train/validation split with random_split"
# expect: match
import torch
from torch.utils.data import TensorDataset, random_split, DataLoader

ds = TensorDataset(torch.arange(20.0).unsqueeze(1), torch.arange(20.0))
train_ds, val_ds = random_split(ds, [15, 5], generator=torch.Generator().manual_seed(42))
print(len(train_ds), len(val_ds))
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for xb, yb in DataLoader(train_ds, batch_size=5):
    loss = ((model(xb).squeeze(1) - yb) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print([round(v, 4) for v in model.weight.flatten().tolist()])

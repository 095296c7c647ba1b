# after: "Datasets & DataLoaders" with num_workers=2
# expect: refused
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4, num_workers=2)
for (xb,) in loader:
    print(xb.shape)

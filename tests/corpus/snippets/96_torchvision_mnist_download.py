# after: PyTorch "Quickstart" loading FashionMNIST with torchvision datasets (download=True)
# expect: refused
# mentions: from torchvision import datasets | Nothing ran
import torch
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.transforms import ToTensor

training_data = datasets.FashionMNIST(
    root="data",
    train=True,
    download=True,
    transform=ToTensor(),
)
train_dataloader = DataLoader(training_data, batch_size=64)

# after: PyTorch forum "Missing key(s) in state_dict ... Unexpected key(s) in state_dict: module.conv1.weight" (weights saved from an nn.DataParallel-wrapped model loaded into a plain one; here the dict is built in memory the way DataParallel names it)
# expect: explained state-dict-mismatch
# mentions: `module.` | `checkpoint` | model.load_state_dict({k.removeprefix('module.'): v for k, v in checkpoint.items()})
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(self.conv1(x).mean((2, 3)))

trained = Net()
checkpoint = {"module." + name: value for name, value in trained.state_dict().items()}
model = Net()
model.load_state_dict(checkpoint)
print(model(torch.randn(1, 1, 5, 5)))

# after: Stack Overflow "Can't call numpy() on Tensor that requires grad" (reading a layer's weights for a plot: model.fc.weight.numpy())
# expect: explained numpy-requires-grad
# mentions: model.fc.weight | .detach().numpy()
import torch
import torch.nn as nn

class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)

model = TinyNet()
weights_np = model.fc.weight.numpy()
print(weights_np.shape)
